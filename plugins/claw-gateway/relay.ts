/**
 * Events relayed between workers. A worker whose clients follow a group it
 * does not own records its interest in the store (refreshed with its
 * heartbeat); the group's owner writes the notifications it publishes for
 * such groups to `claw_relay_events` and wakes the others, who read the rows
 * after their last id and publish them to their own subscribers. Interest is
 * per group, so it survives the group moving to another owner.
 *
 * Writes and reads of one worker take turns (one lane), and a worker skips
 * the rows it wrote itself (its cursor moves past them), so a group moving to
 * or from a follower neither repeats nor drops its events; re-reads of the
 * interest apply in the order they started, so an older answer never hides
 * a newer follower.
 *
 * Stream deltas waiting in the outbox merge as they do for a slow client
 * (one row carries their joined text), so a long reply made without
 * yielding stays far under LIMITS.clawRelayBacklogEvents; a row holds at
 * most LIMITS.clawNotificationBytes, what a follower can send on.
 */
import { describeError, ErrorCodes, XdogError, type Clock } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import type { SessionStore } from '../sessions/tokens.js';
import type { Mergeable } from './transport/index.js';
import type { Subscriptions } from './subscriptions.js';
import { backoffMs, type Notice, type Wakeups } from './wakeups.js';
import { mergeableOf } from './wire-event.js';
import { dropInterest, insertRelayEvents, lastRelayId, pruneRelayEvents, recordInterest, relayEventsAfter, remoteInterest, type RelayEvent } from './worker-store.js';

export interface RelayOptions {
  store: SessionStore;
  clock: Clock;
  wakeups: Wakeups;
  workerId: string;
  leaseMs: number;
  subscriptions: Subscriptions;
  owns(group: string): boolean;
  /** Told of each relayed notification after it was published here (followed-runs.ts watches the runs in them). */
  relayed?(group: string, method: string, params: unknown): void;
  log(line: string): void;
}

/** An event waiting to be relayed: its params, or the joined text of merged deltas. */
interface Outgoing {
  group: string;
  sessionId: string | null;
  method: string;
  params: unknown;
  merged?: { key: string; texts: string[]; bytes: number; build: Mergeable['build'] };
}

export class Relay {
  readonly #options: RelayOptions;
  /** Groups this worker owns that other workers follow. */
  #remote = new Set<string>();
  readonly #outbox: Outgoing[] = [];
  #flushing?: Promise<void>;
  #overflowed = false;
  /** Followed groups owned elsewhere: the last relayed id read, and when a subscribe last asked for the group. */
  readonly #cursors = new Map<string, { after: number; since: number }>();
  #lastPrune = 0;
  /** Flushes and reads, one at a time. */
  #lane: Promise<unknown> = Promise.resolve();
  #reading?: Promise<void>;
  /** Groups to read at the end of the read running now ('all': every cursor; false: none). */
  #readAgain: Set<string> | 'all' | false = false;
  /** Interest re-reads started / the newest one applied. */
  #interestAsked = 0;
  #interestApplied = 0;
  /** The newest interest re-read started. */
  #interestRead?: Promise<void>;

  constructor(options: RelayOptions) {
    this.#options = options;
    // The NOTIFY names the groups written: a worker following none of them reads nothing.
    options.wakeups.on('claw_relay', (targets) => this.read(targets));
    // A follower names the group it starts following: only that group's owner re-reads the interest.
    // Fallback checks (no targets) are left to the heartbeat's re-read.
    options.wakeups.on('claw_interest', async (targets) => {
      if (targets && [...targets].some((group) => options.owns(group))) await this.refreshInterest();
    });
  }

  /** Owner side: true when another worker's clients follow `group` (as of the last interest read). */
  followedElsewhere(group: string): boolean {
    return this.#remote.has(group);
  }

  /** Owner side: relays a notification this worker publishes, when another worker follows the group. */
  publish(group: string, sessionId: string | null, method: string, params: unknown): void {
    if (!this.#remote.has(group)) return;
    const mergeable = mergeableOf(method, params);
    if (mergeable && this.#mergeIntoTail(group, method, mergeable)) return;
    if (this.#outbox.length >= LIMITS.clawRelayBacklogEvents) {
      if (!this.#overflowed) this.#options.log(`more than ${LIMITS.clawRelayBacklogEvents} events wait to be relayed (the store is slow); clients on other workers miss events of group ${group} until it catches up`);
      this.#overflowed = true;
      return;
    }
    const merged = mergeable && { key: mergeable.key, texts: [mergeable.text], bytes: Buffer.byteLength(mergeable.text), build: mergeable.build };
    this.#outbox.push({ group, sessionId, method, params, ...(merged ? { merged } : {}) });
    this.#scheduleFlush();
  }

  /** Joins a delta to the last waiting event when that is a delta of the same kind and run; false when it is not. */
  #mergeIntoTail(group: string, method: string, mergeable: Mergeable): boolean {
    const last = this.#outbox.at(-1);
    const tail = last?.merged;
    const added = Buffer.byteLength(mergeable.text);
    if (!tail || last.group !== group || last.method !== method || tail.key !== mergeable.key || tail.bytes + added > LIMITS.clawMergedDeltaBytes) return false;
    tail.texts.push(mergeable.text);
    tail.bytes += added;
    tail.build = mergeable.build;
    return true;
  }

  /** The rows of a batch; an event that cannot be encoded, or is over what a follower can send, is left out loudly. */
  #rows(batch: readonly Outgoing[]): Array<Omit<RelayEvent, 'id'>> {
    const rows: Array<Omit<RelayEvent, 'id'>> = [];
    for (const event of batch) {
      let params: string;
      try {
        params = JSON.stringify((event.merged ? event.merged.build(event.merged.texts.join('')) : event.params) ?? null);
      } catch (error) {
        this.#options.log(`could not relay a ${event.method} notification of group ${event.group} (${describeError(error)}); clients on other workers miss it`);
        continue;
      }
      if (Buffer.byteLength(params) > LIMITS.clawNotificationBytes) {
        this.#options.log(`a ${event.method} notification of group ${event.group} is over the ${LIMITS.clawNotificationBytes}-byte limit of one notification; clients on other workers miss it`);
        continue;
      }
      rows.push({ group: event.group, sessionId: event.sessionId, method: event.method, params });
    }
    return rows;
  }

  #scheduleFlush(): void {
    this.#flushing ??= this.#flush().finally(() => {
      this.#flushing = undefined;
      if (this.#outbox.length) this.#scheduleFlush();
    });
  }

  async #flush(): Promise<void> {
    const { wakeups, log } = this.#options;
    // Let the rest of this turn's events join the batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#outbox.length) {
      const batch = this.#rows(this.#outbox.splice(0, LIMITS.clawRelayBatchEvents));
      this.#overflowed = false;
      try {
        await this.#inLane(async () => {
          // The followers' wake-up rides on the write, naming the groups written.
          const notice = batch.length ? wakeups.along('claw_relay', [...new Set(batch.map((event) => event.group))].join('\n')) : undefined;
          const highest = await this.#writeRetrying(batch, notice);
          // This worker's own rows are not for its own clients (they had them at once).
          for (const [group, id] of highest) {
            const cursor = this.#cursors.get(group);
            if (cursor) cursor.after = Math.max(cursor.after, id);
          }
        });
      } catch (error) {
        log(`could not relay ${batch.length} events (${describeError(error)}); clients on other workers miss them`);
      }
    }
  }

  /**
   * Writes a batch of relayed events, trying again with backoff while the store is unreachable
   * (a restart) for up to LIMITS.clawHandoffSeconds: followers' clients get them late, not never.
   * Events published meanwhile wait in the bounded outbox.
   */
  async #writeRetrying(batch: ReadonlyArray<Omit<RelayEvent, 'id'>>, notice: Notice | undefined): Promise<Map<string, number>> {
    const { store, clock } = this.#options;
    const deadline = Date.now() + LIMITS.clawHandoffSeconds * 1000;
    for (let attempt = 0; ; attempt++) {
      try {
        return await store.withStatement((sql) => insertRelayEvents(sql, batch, clock.now(), notice));
      } catch (error) {
        if (!XdogError.is(error, ErrorCodes.UNAVAILABLE) || Date.now() >= deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
      }
    }
  }

  /**
   * Owner side, before a run: where followers tell owners by NOTIFY, the interest is current once
   * the re-reads those notices started are done (no statement per run); where they cannot (workers
   * poll), it is re-read.
   */
  async interestForRun(): Promise<void> {
    if (!this.#options.wakeups.notifies) return this.refreshInterest();
    // A notice that came during a re-read starts another right after it: wait for that one too.
    for (let read = this.#interestRead; read; read = this.#interestRead) {
      await read.catch(() => undefined);
      await new Promise((resolve) => setImmediate(resolve));
      if (read === this.#interestRead) break;
    }
  }

  /** Owner side: re-reads which of its groups other workers follow (each heartbeat, and when a follower says so). */
  refreshInterest(): Promise<void> {
    const read = this.#readInterest();
    this.#interestRead = read;
    return read;
  }

  async #readInterest(): Promise<void> {
    const { store, clock, workerId } = this.#options;
    const asked = ++this.#interestAsked;
    const remote = await store.withRead((sql) => remoteInterest(sql, workerId, clock.now()));
    // Re-reads run concurrently (rounds, each run start): an answer older than the one applied is stale.
    if (asked < this.#interestApplied) return;
    this.#interestApplied = asked;
    this.#remote = remote;
  }

  /** Follower side: this worker's clients now follow `group`, owned elsewhere; recorded before the subscribe answers. */
  async follow(group: string): Promise<void> {
    const { store, clock, workerId, leaseMs } = this.#options;
    const cursor = this.#cursors.get(group);
    if (cursor) cursor.since = clock.now();
    else this.#cursors.set(group, { after: await store.withRead((sql) => lastRelayId(sql, group)), since: clock.now() });
    // The group's owner is told in the same statement, so it relays the runs it starts from now on.
    await store.withStatement((sql) => recordInterest(sql, [group], workerId, clock.now() + 3 * leaseMs, this.#options.wakeups.along('claw_interest', group)));
  }

  /** With each heartbeat: refreshes this worker's interest, drops what nobody follows, prunes old events. */
  async tick(): Promise<void> {
    const { store, clock, workerId, subscriptions } = this.#options;
    // Owned groups too: the interest must be in the store already when the group moves away.
    const followed = [...subscriptions.groups()];
    for (const group of followed) {
      const cursor = this.#cursors.get(group);
      if (cursor) cursor.since = clock.now();
      else this.#cursors.set(group, { after: await store.withRead((sql) => lastRelayId(sql, group)), since: clock.now() });
    }
    // Every followed group's interest in one statement, however many.
    await store.withStatement((sql) => recordInterest(sql, followed, workerId, clock.now() + 3 * this.#options.leaseMs));
    for (const [group, cursor] of [...this.#cursors]) {
      // Asked for a moment ago: its subscription may not be recorded yet (subscribe follows first).
      if (followed.includes(group) || subscriptions.groups().has(group) || clock.now() - cursor.since < this.#options.leaseMs) continue;
      this.#cursors.delete(group);
      await store.withStatement((sql) => dropInterest(sql, group, workerId));
    }
    await this.refreshInterest();
    if (clock.now() - this.#lastPrune > (LIMITS.clawRelayRetentionSeconds * 1000) / 10) {
      this.#lastPrune = clock.now();
      await store.withStatement((sql) => pruneRelayEvents(sql, clock.now() - LIMITS.clawRelayRetentionSeconds * 1000));
    }
  }

  /**
   * Follower side: publishes the relayed rows after the cursors of `targets` (every cursor when
   * undefined). One read at a time; wake-ups during one are gathered and read after it.
   */
  read(targets?: ReadonlySet<string>): Promise<void> {
    if (!targets) this.#readAgain = 'all';
    else if (this.#readAgain !== 'all') {
      const again = this.#readAgain || new Set<string>();
      for (const group of targets) again.add(group);
      this.#readAgain = again;
    }
    if (this.#reading) return this.#reading;
    this.#reading = (async () => {
      while (this.#readAgain) {
        const groups = this.#readAgain === 'all' ? undefined : this.#readAgain;
        this.#readAgain = false;
        await this.#inLane(() => this.#read(groups)).catch((error: unknown) => this.#options.log(`could not read relayed events (${describeError(error)}); trying again at the next wake-up`));
      }
    })().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  #inLane<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#lane.then(work);
    this.#lane = result.catch(() => undefined);
    return result;
  }

  /** Rows of owned groups are read too: a previous owner's last events (this worker's own were skipped). */
  async #read(groups: ReadonlySet<string> | undefined): Promise<void> {
    const { store, subscriptions } = this.#options;
    for (const [group, cursor] of this.#cursors) {
      if (groups && !groups.has(group)) continue;
      let after = cursor.after;
      for (;;) {
        const { events, more } = await store.withRead((sql) => relayEventsAfter(sql, group, after, LIMITS.clawRelayBatchEvents, LIMITS.clawRelayBatchBytes));
        for (const event of events) {
          // A damaged row is skipped (and said), never retried forever: the cursor moves past it.
          const params = decodeRelayed(event.params);
          if (params === undefined) {
            this.#options.log(`relay: event ${event.id} of group ${group} in the store is damaged (its params are not JSON); skipped`);
            continue;
          }
          subscriptions.publish(group, event.sessionId, event.method, params);
          this.#options.relayed?.(group, event.method, params);
        }
        if (events.length) after = events[events.length - 1]!.id;
        if (!more) break;
      }
      cursor.after = after;
    }
  }

  /** Writes what waits to be relayed. */
  async close(): Promise<void> {
    await this.#flushing?.catch(() => undefined);
  }
}

/** A relayed event's params, or undefined when the stored text is not JSON. */
function decodeRelayed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
