/**
 * Which connections follow which group (and optionally one session). Every
 * subscriber of a group gets the same events in the same order; a
 * subscription ends with its connection.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCodes, XdogError } from '../../core/index.js';

/** The part of a connection subscriptions need. */
export interface Subscriber {
  notify(method: string, params: unknown): void;
  onClose(listener: () => void): () => void;
}

interface Subscription {
  subscriber: Subscriber;
  group: string;
  sessionId?: string;
  dispose: () => void;
}

export class Subscriptions {
  readonly #byId = new Map<string, Subscription>();

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
    for (const subscription of this.#byId.values()) {
      if (subscription.group !== group) continue;
      if (subscription.sessionId && sessionId && subscription.sessionId !== sessionId) continue;
      subscription.subscriber.notify(method, params);
    }
  }

  /** The groups someone follows now. */
  groups(): Set<string> {
    return new Set([...this.#byId.values()].map((subscription) => subscription.group));
  }

  get size(): number {
    return this.#byId.size;
  }
}
