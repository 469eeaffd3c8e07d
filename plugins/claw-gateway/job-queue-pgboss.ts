/**
 * The group job queue on pg-boss 10 (PostgreSQL): its own schema
 * (`xdog_jobs`) in the store's database, one queue per group with the
 * `singleton` policy and every job's singleton key set to the group, so the
 * database itself refuses a second active job of a group whoever fetches it.
 * A job's id is derived from its key (`jobIdOf`): a second send of the same
 * key inserts nothing. retryLimit is 0: a job that failed or whose consumer
 * vanished is never run again. Each worked group has a fetch loop of ours
 * (not `boss.work`, whose shutdown can leave completions racing a closed
 * pool): fetch one job, run it, complete or fail it, fetch again at once.
 * An idle group waits for a wake-up: a send on this worker wakes its loop at
 * once, a send on another worker by NOTIFY (`claw_job`, naming the group), and
 * a slow check every `LIMITS.groupJobPollMs` covers a lost notification.
 *
 * Supervised: a fetch that fails (the database restarting, pg-boss's pool
 * losing its connections) is logged once and tried again with backoff up to
 * `LIMITS.groupJobRetryMaxMs`, never ending the loop; the group's jobs wait
 * in the database meanwhile.
 */
import PgBoss from 'pg-boss';
import { describeError } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { retryingConflicts } from '../sessions/tokens.js';
import type { Wakeups } from './wakeups.js';
import { jobIdOf, type GroupJobHandler, type GroupJobQueue, type GroupJobRequest, type PgConnection, type SendOptions, type SendOutcome } from './job-queue.js';

/** The PostgreSQL schema pg-boss keeps its tables in, beside the store's. */
export const JOB_SCHEMA = 'xdog_jobs';

/** A group's queue name. */
export function groupQueueName(group: string): string {
  return `xdog-group-${group}`;
}

/**
 * Jobs per fetch: one. A group's queue has one singleton key, so pg-boss
 * would hand out one per fetch anyway; the loop fetches again at once after
 * each job, so a busy group is not held back by the poll period.
 */
const FETCH_BATCH = 1;

/** Job states in which a job will still be fetched. */
const WAITING = new Set(['created', 'retry']);

interface Lane {
  handler?: GroupJobHandler;
  loop?: Promise<void>;
  wake?: () => void;
  /** The id of the job being run here now. */
  active?: string;
}

interface Payload {
  key: string;
  type: string;
  data: Record<string, unknown>;
}

export class PgBossGroupJobQueue implements GroupJobQueue {
  readonly kind = 'pg-boss';
  readonly durable = true;
  readonly #lanes = new Map<string, Lane>();
  readonly #queues = new Map<string, Promise<void>>();
  #stopped = false;

  private constructor(
    private readonly boss: PgBoss,
    private readonly log: (line: string) => void,
    private readonly wakeups?: Wakeups,
  ) {
    // Only named groups: a fallback check ("everything") is each lane's own slow poll already.
    wakeups?.on('claw_job', async (targets) => {
      for (const group of targets ?? []) this.#lanes.get(group)?.wake?.();
    });
  }

  /** Connects, creates or migrates the schema, and starts pg-boss's maintenance (expiry, archiving). */
  static async open(connection: PgConnection, log: (line: string) => void, wakeups?: Wakeups): Promise<PgBossGroupJobQueue> {
    const boss = new PgBoss({
      ...connection,
      schema: JOB_SCHEMA,
      application_name: 'xdog-jobs',
      max: LIMITS.groupJobPoolConnections,
      // Only our own queues: no cron, no state monitor.
      schedule: false,
      supervise: true,
      migrate: true,
      retryLimit: 0,
      expireInSeconds: LIMITS.groupJobExpirySeconds,
      archiveCompletedAfterSeconds: LIMITS.groupJobKeepCompletedSeconds,
      archiveFailedAfterSeconds: LIMITS.groupJobKeepCompletedSeconds,
      deleteAfterDays: LIMITS.groupJobArchiveDays,
    });
    boss.on('error', (error: unknown) => log(`job queue (pg-boss): ${describeError(error)}`));
    await boss.start();
    return new PgBossGroupJobQueue(boss, log, wakeups);
  }

  async send(group: string, job: GroupJobRequest, options: SendOptions = {}): Promise<SendOutcome> {
    this.#assertRunning();
    const name = groupQueueName(group);
    await this.#queue(group);
    const id = jobIdOf(group, job.key);
    const payload: Payload = { key: job.key, type: job.type, data: job.data };
    const sendOptions = { id, singletonKey: group, retryLimit: 0, expireInSeconds: LIMITS.groupJobExpirySeconds };
    let sent = await this.boss.send(name, payload, sendOptions);
    if (!sent && options.replace) {
      const existing = await this.boss.getJobById(name, id);
      const runningHere = this.#lanes.get(group)?.active === id;
      if (existing && !WAITING.has(existing.state) && !runningHere) {
        await this.boss.deleteJob(name, id);
        sent = await this.boss.send(name, payload, sendOptions);
      }
    }
    if (!sent) return 'duplicate';
    const lane = this.#lanes.get(group);
    if (lane?.handler) lane.wake?.();
    // Worked elsewhere: its owner hears of it now; a lost notification waits for its slow check.
    else await this.wakeups?.notify('claw_job', group).catch((error: unknown) => this.log(`job queue: could not wake the owner of group ${group}: ${describeError(error)}`));
    return 'queued';
  }

  async work(group: string, handler: GroupJobHandler): Promise<void> {
    this.#assertRunning();
    const lane = this.#lanes.get(group) ?? {};
    if (lane.handler) throw new Error(`group ${group}'s jobs are already worked here`);
    this.#lanes.set(group, lane);
    await this.#queue(group);
    await this.#failLeftActive(group);
    lane.handler = handler;
    lane.loop = this.#loop(group, lane);
  }

  async unwork(group: string): Promise<void> {
    const lane = this.#lanes.get(group);
    if (!lane?.handler) return;
    lane.handler = undefined;
    lane.wake?.();
    await lane.loop;
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const lane of this.#lanes.values()) {
      lane.handler = undefined;
      lane.wake?.();
    }
    // graceful: the non-graceful stop leaves a timer behind in 10.4.2; no boss.work is in use, so nothing is waited for.
    await this.boss.stop({ graceful: true, wait: true, timeout: 1000 });
  }

  #assertRunning(): void {
    if (this.#stopped) throw new Error('the job queue is stopped');
  }

  /**
   * Creates the group's queue once (idempotent in the database too: ON CONFLICT DO NOTHING).
   * pg-boss creates a queue as a partition of its job table, unlocked: two workers creating
   * queues at once can deadlock, and the one PostgreSQL picks is simply run again.
   */
  #queue(group: string): Promise<void> {
    let created = this.#queues.get(group);
    if (!created) {
      const name = groupQueueName(group);
      created = retryingConflicts(() => this.boss.createQueue(name, { name, policy: 'singleton', retryLimit: 0, expireInSeconds: LIMITS.groupJobExpirySeconds }));
      created.catch(() => this.#queues.delete(group));
      this.#queues.set(group, created);
    }
    return created;
  }

  /** Taking a group over: a job still active belongs to a consumer that is gone (the lease moved); it is failed, never re-run. */
  async #failLeftActive(group: string): Promise<void> {
    const name = groupQueueName(group);
    const { rows } = await this.boss.getDb().executeSql(`SELECT id FROM ${JOB_SCHEMA}.job WHERE name = $1 AND state = 'active'`, [name]);
    const ids = (rows as { id: string }[]).map((row) => row.id);
    if (ids.length === 0) return;
    for (const id of ids) await this.boss.fail(name, id, { message: 'the worker running this job went away; it is not run again' });
    this.log(`job queue: group ${group}: ${ids.length} job(s) left running by a previous owner failed (not run again)`);
  }

  async #loop(group: string, lane: Lane): Promise<void> {
    const name = groupQueueName(group);
    const handler = lane.handler!;
    let failures = 0;
    while (lane.handler === handler && !this.#stopped) {
      let job: PgBoss.Job<Payload> | undefined;
      try {
        [job] = await this.boss.fetch<Payload>(name, { batchSize: FETCH_BATCH });
      } catch (error) {
        failures++;
        if (failures === 1 || failures % 20 === 0) this.log(`job queue: group ${group}: fetching jobs failed (${describeError(error)}, attempt ${failures}); retrying with backoff, the jobs wait in the database`);
        await this.#idle(lane, Math.min(LIMITS.groupJobRetryMaxMs, 100 * 2 ** (failures - 1)));
        continue;
      }
      if (failures) this.log(`job queue: group ${group}: fetching jobs works again (after ${failures} failed attempt(s))`);
      failures = 0;
      if (!job) {
        await this.#idle(lane, LIMITS.groupJobPollMs);
        continue;
      }
      lane.active = job.id;
      let failure: string | undefined;
      try {
        await handler({ group, key: job.data.key, type: job.data.type, data: job.data.data });
      } catch (error) {
        failure = describeError(error);
        this.log(`job queue: group ${group}: job ${job.data.type} ${job.data.key} failed (not retried): ${failure}`);
      } finally {
        lane.active = undefined;
      }
      // After stop() the pool is closed: the job stays active and the group's next owner fails it (it ran here once, and that is all).
      if (this.#stopped) break;
      await (failure === undefined ? this.boss.complete(name, job.id) : this.boss.fail(name, job.id, { message: failure })).catch((error: unknown) =>
        this.log(`job queue: group ${group}: recording the end of job ${job.data.key} failed: ${describeError(error)}`),
      );
    }
  }

  /** Waits `ms`, or less when a job is sent for the group or the lane stops. */
  #idle(lane: Lane, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        lane.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      lane.wake = done;
    });
  }
}
