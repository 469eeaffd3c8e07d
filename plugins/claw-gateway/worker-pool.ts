/**
 * A worker's place in the pool: every quarter of the lease it renews all its
 * leases in one statement and heartbeats in `claw_workers`, on a timer of its
 * own so that a slow round (loading groups) never delays either; every third it
 * takes its fair share of the configured groups (ceil(groups / live workers)): free or
 * expired leases up to the share, and idle groups given back when it holds
 * more, so a newcomer gets work. Losing one lease closes that group only.
 *
 * A worker of this host that dies frees its groups at once: every
 * LIMITS.clawPeerWatchMs a check with no database work looks for the pids of
 * this host's other workers (from the last round), and a pid found gone starts
 * a round now instead of at the next third of the lease.
 *
 * Self-fencing: a timer that needs no database aborts and closes a group
 * whose last successful renewal leaves less than a third of the lease, so an
 * owner cut off from the database stops before anyone may take the group over
 * (this assumes the workers' clocks agree to well under that third: NTP), and
 * no run starts on a group with less than that left (`untilLeaseFresh`).
 */
import { describeError, ErrorCodes, XdogError, type Clock } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import type { LeaseOwner, LeaseRecord, SessionStore } from '../sessions/tokens.js';
import { pidGone, workerGone } from './worker-liveness.js';
import { heartbeatWorker, listWorkers, pruneWorkers, removeWorker, type WorkerRecord } from './worker-store.js';

export interface ShareInput {
  /** Every configured group. */
  configured: readonly string[];
  /** The groups this worker serves now. */
  mine: readonly string[];
  /** Every lease in the store. */
  leases: readonly LeaseRecord[];
  /** Workers with a fresh heartbeat, this one included. */
  liveWorkers: number;
  /** Groups of `mine` with no run and nothing queued. */
  idle: ReadonlySet<string>;
  now: number;
}

export interface SharePlan {
  target: number;
  acquire: string[];
  release: string[];
}

/** What a worker should take and give back to hold its fair share. */
export function planShare(input: ShareInput): SharePlan {
  const target = Math.ceil(input.configured.length / Math.max(1, input.liveWorkers));
  const mine = new Set(input.mine);
  const held = new Map(input.leases.filter((lease) => lease.expiresAt > input.now).map((lease) => [lease.group, lease]));
  if (mine.size < target) {
    const free = input.configured.filter((group) => !mine.has(group) && !held.has(group));
    return { target, acquire: free.slice(0, target - mine.size), release: [] };
  }
  if (mine.size > target) {
    const release = input.mine.filter((group) => input.idle.has(group)).slice(0, mine.size - target);
    return { target, acquire: [], release };
  }
  return { target, acquire: [], release: [] };
}

export interface PoolGroups {
  /** Groups served now. */
  owned(): readonly string[];
  idle(group: string): boolean;
  /** Loads a group whose lease this worker just took; a failure is logged and the lease given back. */
  open(group: string): Promise<void>;
  /** Closes a group (groupClosing, then its runtime); `release` gives the lease back after. */
  close(group: string, release: boolean): Promise<void>;
}

export interface WorkerPoolOptions {
  store: SessionStore;
  clock: Clock;
  worker: WorkerRecord;
  owner: LeaseOwner;
  leaseMs: number;
  configured: readonly string[];
  groups: PoolGroups;
  /** Stops a group at once (aborting its run), then closes it like close(group, false): its lease is about to run out. */
  fence?(group: string): Promise<void>;
  /** Extra work each tick (relay interest, pruning). */
  onTick?(): Promise<void>;
  log(line: string): void;
}

export class WorkerPool {
  readonly #options: WorkerPoolOptions;
  readonly #expiries = new Map<string, number>();
  #timer?: NodeJS.Timeout;
  #renewTimer?: NodeJS.Timeout;
  #renewing?: Promise<void>;
  /** Groups whose lease the fair share is taking right now (not yet in #expiries). */
  readonly #acquiring = new Set<string>();
  #fenceTimer?: NodeJS.Timeout;
  #ticking?: Promise<void>;
  #stopped = false;
  /** Consecutive failures of each round step, so an outage is logged once, not every second. */
  readonly #failures = new Map<string, number>();
  /** Workers found gone in the last round (logged once). */
  #reportedGone = new Set<string>();
  /** The other live workers of this host, as the last round saw them: the peer watch checks their pids. */
  #peers: WorkerRecord[] = [];
  /** Peers whose missing pid already started a round (one round each, even if that round could not free them). */
  readonly #watchedGone = new Set<string>();
  #watchTimer?: NodeJS.Timeout;

  constructor(options: WorkerPoolOptions) {
    this.#options = options;
  }

  get worker(): WorkerRecord {
    return this.#options.worker;
  }

  /** The lease expiry of a group this worker holds. */
  expiryOf(group: string): number | undefined {
    return this.#expiries.get(group);
  }

  /** The smallest part of the lease a group may have left and still be served (a third). */
  get margin(): number {
    return this.#options.leaseMs / 3;
  }

  /**
   * Starts renewing, ticking and checking the fence, and resolves once the
   * first round (registration and a first share) is done. The timers start
   * first: loading that first share can outlast a lease, and its leases must be
   * renewed meanwhile like any other's.
   */
  async start(): Promise<void> {
    this.#renewTimer = setInterval(() => void this.renew(), this.#options.leaseMs / 4);
    this.#renewTimer.unref();
    this.#timer = setInterval(() => void this.tick(), this.#options.leaseMs / 3);
    this.#timer.unref();
    this.#fenceTimer = setInterval(() => this.#checkFence(), Math.max(10, this.#options.leaseMs / 12));
    this.#fenceTimer.unref();
    this.#watchTimer = setInterval(() => this.#watchPeers(), LIMITS.clawPeerWatchMs);
    this.#watchTimer.unref();
    await this.tick();
  }

  /**
   * Resolves once `group` has at least the margin of its lease left (running a
   * round to renew it if needed); UNAVAILABLE when the group was lost or
   * fenced meanwhile. A run must not start before.
   */
  async untilLeaseFresh(group: string): Promise<void> {
    const { clock, leaseMs } = this.#options;
    const deadline = clock.now() + leaseMs;
    for (;;) {
      const expiry = this.#expiries.get(group);
      if (expiry === undefined || this.#stopped || clock.now() > deadline) {
        throw new XdogError(ErrorCodes.UNAVAILABLE, `this worker no longer holds the lease of group ${group}`, { hint: 'the group moves to another worker; retry there' });
      }
      if (expiry - clock.now() >= this.margin) return;
      await this.renew();
      if ((this.#expiries.get(group) ?? 0) - clock.now() < this.margin) await new Promise((resolve) => setTimeout(resolve, leaseMs / 12));
    }
  }

  /**
   * Renews this worker's leases now, then its heartbeat (one renewal at a time;
   * a failure is logged, the fence covers it). The heartbeat rides here, not on
   * the slower round, so a round busy loading groups never makes this worker
   * look gone to the others (which would shift every fair share).
   */
  renew(): Promise<void> {
    this.#renewing ??= this.#renewAndBeat().finally(() => (this.#renewing = undefined));
    return this.#renewing;
  }

  async #renewAndBeat(): Promise<void> {
    const { store, clock, worker } = this.#options;
    await this.#step('renewing the leases', () => this.#renew());
    await this.#step('heartbeat', async () => {
      worker.heartbeatAt = clock.now();
      await store.withStatement((sql) => heartbeatWorker(sql, worker));
    });
  }

  /** One round: renewals and heartbeat first, then fair share, extra work, pruning, each guarded on its own. Rounds never overlap. */
  tick(): Promise<void> {
    this.#ticking ??= this.#tick().finally(() => (this.#ticking = undefined));
    return this.#ticking;
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    const { store, clock, leaseMs } = this.#options;
    await this.renew();
    await this.#step('fair share', () => this.#share());
    if (this.#options.onTick) await this.#step('relay', this.#options.onTick);
    await this.#step('pruning', () => store.withStatement((sql) => pruneWorkers(sql, clock.now() - 10 * leaseMs)));
  }

  /** Runs one step of a round; a failure is logged once (and every 20th time) until the step works again, which is logged too. */
  async #step(name: string, work: () => Promise<void>): Promise<void> {
    if (this.#stopped) return;
    const failures = this.#failures.get(name) ?? 0;
    try {
      await work();
      if (failures) this.#options.log(`worker round: ${name} works again (after ${failures} failed attempt(s))`);
      this.#failures.delete(name);
    } catch (error) {
      this.#failures.set(name, failures + 1);
      if (failures === 0 || (failures + 1) % 20 === 0) this.#options.log(`worker round: ${name} failed (${describeError(error)}, attempt ${failures + 1}); retrying in ${Math.round(this.#options.leaseMs / 3)} ms`);
    }
  }

  /** Renews every lease of this worker in one statement; a group whose lease was not renewed is lost and closed. */
  async #renew(): Promise<void> {
    const { store, clock, owner, leaseMs, groups, log } = this.#options;
    const before = new Map(this.#expiries);
    if (!before.size) return;
    const now = clock.now();
    const renewed = new Set(await store.renewLeases(owner.ownerId, now, leaseMs));
    for (const [group, expiry] of before) {
      // Changed meanwhile (fenced, given back, or taken anew by this worker): not this renewal's to judge.
      if (this.#expiries.get(group) !== expiry) continue;
      if (renewed.has(group)) {
        this.#expiries.set(group, now + leaseMs);
        continue;
      }
      // It ran out (or another worker holds it now): serving it on would break the one-owner rule.
      log(`lost the lease of group ${group}; closing that group`);
      this.#expiries.delete(group);
      // Not awaited: closing waits for the run to stop, and the next renewal must not wait for that.
      if (groups.owned().includes(group)) void groups.close(group, false).catch((error: unknown) => log(`group ${group} did not close cleanly: ${describeError(error)}`));
    }
    // A lease still ours for a group this worker no longer serves (fenced, or its release failed after a
    // failed load or a give-back) was renewed with the others: give it back rather than keep it alive unserved.
    const served = new Set(groups.owned());
    for (const group of renewed) {
      if (this.#expiries.has(group) || this.#acquiring.has(group) || served.has(group)) continue;
      await store.releaseLease(group, owner.ownerId).catch((error: unknown) => log(`could not give the lease of group ${group} back (${describeError(error)}); trying again at the next renewal`));
    }
  }

  /** No database work: stops every group whose lease, as last renewed, has less than the margin left. */
  #checkFence(): void {
    if (this.#stopped) return;
    const { clock, log } = this.#options;
    const now = clock.now();
    for (const [group, expiry] of this.#expiries) {
      if (expiry - now >= this.margin) continue;
      this.#expiries.delete(group);
      log(`could not renew the lease of group ${group} in time (${Math.max(0, expiry - now)} ms left); stopping that group before it expires`);
      const fence = this.#options.fence ?? ((name: string) => this.#options.groups.close(name, false));
      void fence(group).catch((error: unknown) => log(`group ${group} did not stop cleanly: ${describeError(error)}`));
    }
  }

  /** No database work: a peer of this host whose pid is gone starts a round now (the round checks its socket too, then frees its groups). */
  #watchPeers(): void {
    if (this.#stopped || this.#ticking) return; // a round is running; the next check sees what it missed
    const died = this.#peers.filter((peer) => !this.#watchedGone.has(peer.id) && pidGone(peer));
    if (!died.length) return;
    for (const peer of died) this.#watchedGone.add(peer.id);
    void this.tick();
  }

  async #share(): Promise<void> {
    const { store, clock, owner, leaseMs, groups, configured, log } = this.#options;
    const now = clock.now();
    const [workers, leases] = await Promise.all([store.withRead(listWorkers), store.listLeases()]);
    // A worker of this host that is certainly gone frees its groups now, not when its leases run out.
    const fresh = workers.filter((candidate) => candidate.heartbeatAt > now - leaseMs);
    const gone = new Set<string>();
    for (const candidate of fresh) if (candidate.id !== this.#options.worker.id && (await workerGone(candidate))) gone.add(candidate.id);
    for (const id of gone) if (!this.#reportedGone.has(id)) log(`worker ${workers.find((candidate) => candidate.id === id)!.name} on this host is gone (no process, its socket refuses); its groups are free`);
    this.#reportedGone = gone;
    this.#peers = fresh.filter((candidate) => candidate.id !== this.#options.worker.id && !gone.has(candidate.id));
    const live = fresh.length - gone.size;
    const mine = groups.owned();
    const held = leases.filter((lease) => !gone.has(lease.ownerId));
    const plan = planShare({ configured, mine, leases: held, liveWorkers: Math.max(1, live), idle: new Set(mine.filter((group) => groups.idle(group))), now });
    for (const group of plan.release) {
      if (this.#stopped) return;
      log(`giving group ${group} back (holding ${mine.length}, fair share ${plan.target})`);
      this.#expiries.delete(group);
      await groups.close(group, true);
    }
    const started = clock.now();
    for (const group of plan.acquire) {
      // Loading takes time; the leases taken this round must be renewed before they run out.
      if (this.#stopped || clock.now() - started > leaseMs / 3) return;
      let lease: LeaseRecord;
      this.#acquiring.add(group);
      try {
        lease = await store.acquireLease(group, owner, clock.now(), leaseMs);
      } catch (error) {
        if (!XdogError.is(error, ErrorCodes.CONFLICT)) throw error;
        continue; // another worker was faster
      } finally {
        this.#acquiring.delete(group);
      }
      this.#expiries.set(group, lease.expiresAt);
      try {
        await groups.open(group);
        // Fenced while loading (its first renewal came too late): it must not be served.
        if (!this.#expiries.has(group)) {
          await groups.close(group, false);
          continue;
        }
        log(`took group ${group}`);
      } catch (error) {
        log(`could not load group ${group} (${describeError(error)}); giving its lease back`);
        this.#expiries.delete(group);
        // A failed release is retried by the next renewal, which gives back every lease of a group not served.
        await store.releaseLease(group, owner.ownerId).catch(() => undefined);
      }
    }
  }

  /** Stops ticking: no group is taken or given back after it resolves. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    clearInterval(this.#renewTimer);
    clearInterval(this.#fenceTimer);
    clearInterval(this.#watchTimer);
    await this.#ticking?.catch(() => undefined);
    await this.#renewing;
  }

  /** Leaves the registry (after the gateway closed its groups and released their leases). */
  async leave(): Promise<void> {
    await this.stop();
    await this.#options.store.withTransaction((sql) => removeWorker(sql, this.#options.worker.id));
  }
}
