/**
 * A worker's place in the pool: it heartbeats in `claw_workers`, renews the
 * leases of its groups every third of the lease, and takes its fair share of
 * the configured groups (ceil(groups / live workers)): free or expired leases
 * up to the share, and idle groups given back when it holds more, so a
 * newcomer gets work. Losing one lease closes that group only.
 */
import { describeError, ErrorCodes, XdogError, type Clock } from '../../core/index.js';
import type { LeaseOwner, LeaseRecord, SessionStore } from '../sessions/index.js';
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
  /** Extra work each tick (relay interest, pruning). */
  onTick?(): Promise<void>;
  log(line: string): void;
}

export class WorkerPool {
  readonly #options: WorkerPoolOptions;
  readonly #expiries = new Map<string, number>();
  #timer?: NodeJS.Timeout;
  #ticking?: Promise<void>;
  #stopped = false;

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

  /** Registers, takes a first share, then keeps ticking every third of the lease. */
  async start(): Promise<void> {
    await this.tick();
    this.#timer = setInterval(() => void this.tick(), this.#options.leaseMs / 3);
    this.#timer.unref();
  }

  /** One round: heartbeat, renewals, fair share. Rounds never overlap. */
  tick(): Promise<void> {
    this.#ticking ??= this.#tick().finally(() => (this.#ticking = undefined));
    return this.#ticking;
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    const { store, clock, worker, log } = this.#options;
    try {
      const now = clock.now();
      worker.heartbeatAt = now;
      await store.withTransaction((sql) => heartbeatWorker(sql, worker));
      await this.#renew();
      await this.#share();
      await this.#options.onTick?.();
      await store.withTransaction((sql) => pruneWorkers(sql, clock.now() - 10 * this.#options.leaseMs));
    } catch (error) {
      log(`worker round failed (${describeError(error)}); retrying in ${Math.round(this.#options.leaseMs / 3)} ms`);
    }
  }

  async #renew(): Promise<void> {
    const { store, clock, owner, leaseMs, groups, log } = this.#options;
    for (const group of groups.owned()) {
      if (this.#stopped) return;
      try {
        const lease = await store.acquireLease(group, owner, clock.now(), leaseMs);
        this.#expiries.set(group, lease.expiresAt);
      } catch (error) {
        const expired = (this.#expiries.get(group) ?? 0) <= clock.now();
        if (!XdogError.is(error, ErrorCodes.CONFLICT) && !expired) {
          log(`could not renew the lease of group ${group} (${describeError(error)}); trying again before it expires`);
          continue;
        }
        // Another worker holds it now (or ours ran out): serving it on would break the one-owner rule.
        log(`lost the lease of group ${group} (${describeError(error)}); closing that group`);
        this.#expiries.delete(group);
        await groups.close(group, false);
      }
    }
  }

  async #share(): Promise<void> {
    const { store, clock, owner, leaseMs, groups, configured, log } = this.#options;
    const now = clock.now();
    const [workers, leases] = await Promise.all([store.withRead(listWorkers), store.listLeases()]);
    const live = workers.filter((candidate) => candidate.heartbeatAt > now - leaseMs).length;
    const mine = groups.owned();
    const plan = planShare({ configured, mine, leases, liveWorkers: Math.max(1, live), idle: new Set(mine.filter((group) => groups.idle(group))), now });
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
      try {
        lease = await store.acquireLease(group, owner, clock.now(), leaseMs);
      } catch (error) {
        if (!XdogError.is(error, ErrorCodes.CONFLICT)) throw error;
        continue; // another worker was faster
      }
      this.#expiries.set(group, lease.expiresAt);
      try {
        await groups.open(group);
        log(`took group ${group}`);
      } catch (error) {
        log(`could not load group ${group} (${describeError(error)}); giving its lease back`);
        this.#expiries.delete(group);
        await store.releaseLease(group, owner.ownerId).catch(() => undefined);
      }
    }
  }

  /** Stops ticking: no group is taken or given back after it resolves. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#ticking?.catch(() => undefined);
  }

  /** Leaves the registry (after the gateway closed its groups and released their leases). */
  async leave(): Promise<void> {
    await this.stop();
    await this.#options.store.withTransaction((sql) => removeWorker(sql, this.#options.worker.id));
  }
}
