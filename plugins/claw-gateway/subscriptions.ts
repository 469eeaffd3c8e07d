/**
 * Which connections follow which group (and optionally one session). Every
 * subscriber of a group gets the same events in the same order; a
 * subscription ends with its connection. Publishing never fails the caller:
 * what a client watches never changes what runs or what is stored (a
 * connection that cannot take a notification cuts itself and logs why).
 */
import { randomUUID } from 'node:crypto';
import { ErrorCodes, XdogError, describeError } from '../../core/index.js';
import type { Mergeable } from './transport/index.js';
import { mergeableOf } from './wire-event.js';

/** The part of a connection subscriptions need. */
export interface Subscriber {
  notify(method: string, params: unknown, mergeable?: Mergeable): void;
  onClose(listener: () => void): () => void;
  /** The client features its `hello` declared (absent: none). */
  readonly features?: ReadonlySet<string>;
}

interface Subscription {
  subscriber: Subscriber;
  group: string;
  sessionId?: string;
  dispose: () => void;
}

export class Subscriptions {
  readonly #byId = new Map<string, Subscription>();
  readonly #log: (line: string) => void;

  constructor(log: (line: string) => void) {
    this.#log = log;
  }

  add(subscriber: Subscriber, group: string, sessionId?: string): string {
    const id = randomUUID();
    const dispose = subscriber.onClose(() => this.#byId.delete(id));
    this.#byId.set(id, { subscriber, group, sessionId, dispose });
    return id;
  }

  /** Ends a subscription; only the connection that made it may end it. */
  remove(id: string, subscriber: Subscriber): void {
    const subscription = this.#byId.get(id);
    if (!subscription || subscription.subscriber !== subscriber) {
      throw new XdogError(ErrorCodes.NOT_FOUND, `no subscription "${id}" on this connection`, { hint: 'subscribe returns the id to pass' });
    }
    subscription.dispose();
    this.#byId.delete(id);
  }

  /** Sends to every subscriber of `group` (and of `sessionId`, for session-bound subscriptions). */
  publish(group: string, sessionId: string | null, method: string, params: unknown): void {
    // A stream delta may join the one before it for a connection that is behind.
    const mergeable = mergeableOf(method, params);
    for (const subscription of [...this.#byId.values()]) {
      if (subscription.group !== group) continue;
      if (subscription.sessionId && sessionId && subscription.sessionId !== sessionId) continue;
      try {
        subscription.subscriber.notify(method, params, mergeable);
      } catch (error) {
        this.#log(`a subscriber of group ${group} failed to take a ${method} notification: ${describeError(error)}`);
      }
    }
  }

  /** The groups someone follows now. */
  groups(): Set<string> {
    return new Set([...this.#byId.values()].map((subscription) => subscription.group));
  }

  /** True when a subscriber of `group` declared `feature` in its hello. */
  followedWith(group: string, feature: string): boolean {
    return [...this.#byId.values()].some((subscription) => subscription.group === group && subscription.subscriber.features?.has(feature) === true);
  }

  get size(): number {
    return this.#byId.size;
  }
}
