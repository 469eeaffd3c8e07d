/**
 * Events relayed between workers. A worker whose clients follow a group it
 * does not own records its interest in the store (refreshed with its
 * heartbeat); the group's owner writes the notifications it publishes for
 * such groups to `claw_relay_events` and wakes the others, who read the rows
 * after their last id and publish them to their own subscribers. Interest is
 * per group, so it survives the group moving to another owner.
 */
import { describeError, type Clock } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import type { SessionStore } from '../sessions/index.js';
import type { Subscriptions } from './subscriptions.js';
import type { Wakeups } from './wakeups.js';
import { dropInterest, insertRelayEvents, lastRelayId, pruneRelayEvents, recordInterest, relayEventsAfter, remoteInterest, type RelayEvent } from './worker-store.js';

export interface RelayOptions {
  store: SessionStore;
  clock: Clock;
  wakeups: Wakeups;
  workerId: string;
  leaseMs: number;
  subscriptions: Subscriptions;
  owns(group: string): boolean;
  log(line: string): void;
}

export class Relay {
  readonly #options: RelayOptions;
  /** Groups this worker owns that other workers follow. */
  #remote = new Set<string>();
  readonly #outbox: Array<Omit<RelayEvent, 'id'>> = [];
  #flushing?: Promise<void>;
  #overflowed = false;
  /** Followed groups owned elsewhere: the last relayed id read, and when a subscribe last asked for the group. */
  readonly #cursors = new Map<string, { after: number; since: number }>();
  #lastPrune = 0;

  constructor(options: RelayOptions) {
    this.#options = options;
    options.wakeups.on('claw_relay', () => this.#read());
  }

  /** Owner side: relays a notification this worker publishes, when another worker follows the group. */
  publish(group: string, sessionId: string | null, method: string, params: unknown): void {
    if (!this.#remote.has(group)) return;
    if (this.#outbox.length >= LIMITS.clawRelayBacklogEvents) {
      if (!this.#overflowed) this.#options.log(`more than ${LIMITS.clawRelayBacklogEvents} events wait to be relayed (the store is slow); clients on other workers miss events of group ${group} until it catches up`);
      this.#overflowed = true;
      return;
    }
    this.#outbox.push({ group, sessionId, method, params: JSON.stringify(params ?? null) });
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    this.#flushing ??= this.#flush().finally(() => {
      this.#flushing = undefined;
      if (this.#outbox.length) this.#scheduleFlush();
    });
  }

  async #flush(): Promise<void> {
    const { store, clock, wakeups, log } = this.#options;
    // Let the rest of this turn's events join the batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#outbox.length) {
      const batch = this.#outbox.splice(0, LIMITS.clawRelayBatchEvents);
      this.#overflowed = false;
      try {
        await store.withTransaction((sql) => insertRelayEvents(sql, batch, clock.now()));
        await wakeups.notify('claw_relay');
      } catch (error) {
        log(`could not relay ${batch.length} events (${describeError(error)}); clients on other workers miss them`);
      }
    }
  }

  /** Owner side: re-reads which of its groups other workers follow (each heartbeat and before each run). */
  async refreshInterest(): Promise<void> {
    const { store, clock, workerId } = this.#options;
    this.#remote = await store.withRead((sql) => remoteInterest(sql, workerId, clock.now()));
  }

  /** Follower side: this worker's clients now follow `group`, owned elsewhere; recorded before the subscribe answers. */
  async follow(group: string): Promise<void> {
    const { store, clock, workerId, leaseMs } = this.#options;
    const cursor = this.#cursors.get(group);
    if (cursor) cursor.since = clock.now();
    else this.#cursors.set(group, { after: await store.withRead((sql) => lastRelayId(sql, group)), since: clock.now() });
    await store.withTransaction((sql) => recordInterest(sql, group, workerId, clock.now() + 3 * leaseMs));
  }

  /** With each heartbeat: refreshes this worker's interest, drops what nobody follows, prunes old events. */
  async tick(): Promise<void> {
    const { store, clock, workerId, subscriptions, owns } = this.#options;
    const followed = [...subscriptions.groups()].filter((group) => !owns(group));
    for (const group of followed) await this.follow(group);
    for (const [group, cursor] of [...this.#cursors]) {
      // Asked for a moment ago: its subscription may not be recorded yet (subscribe follows first).
      if (followed.includes(group) || subscriptions.groups().has(group) || clock.now() - cursor.since < this.#options.leaseMs) continue;
      this.#cursors.delete(group);
      await store.withTransaction((sql) => dropInterest(sql, group, workerId));
    }
    await this.refreshInterest();
    if (clock.now() - this.#lastPrune > (LIMITS.clawRelayRetentionSeconds * 1000) / 10) {
      this.#lastPrune = clock.now();
      await store.withTransaction((sql) => pruneRelayEvents(sql, clock.now() - LIMITS.clawRelayRetentionSeconds * 1000));
    }
  }

  async #read(): Promise<void> {
    const { store, subscriptions, owns } = this.#options;
    for (const [group, cursor] of this.#cursors) {
      if (owns(group)) continue;
      let after = cursor.after;
      for (;;) {
        const events = await store.withRead((sql) => relayEventsAfter(sql, group, after, LIMITS.clawRelayBatchEvents));
        for (const event of events) subscriptions.publish(group, event.sessionId, event.method, JSON.parse(event.params));
        if (events.length) after = events[events.length - 1]!.id;
        if (events.length < LIMITS.clawRelayBatchEvents) break;
      }
      cursor.after = after;
    }
  }

  /** Writes what waits to be relayed. */
  async close(): Promise<void> {
    await this.#flushing?.catch(() => undefined);
  }
}
