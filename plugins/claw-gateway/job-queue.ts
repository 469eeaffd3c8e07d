/**
 * The group job queue: scheduled runs and channel turns are jobs sent to the
 * queue of the group they belong to, under a key made from what they come
 * from (a run id, a channel message id), and worked one at a time by the
 * gateway worker that owns the group. Two implementations behind one
 * interface, picked by the store: PostgreSQL → pg-boss (durable, shared by
 * every worker on the database), SQLite → an in-process queue (the one
 * gateway owns every group). Neither ever runs a job twice: a job whose
 * consumer went away while it ran is failed, never retried (docs/automation.md).
 */
import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Wakeups } from './wakeups.js';

/** What a service sends: its type picks the handler, its key dedupes it. */
export interface GroupJobRequest {
  /** Stable for the work it stands for (e.g. `run:42`): a second send with the same key is a duplicate. */
  key: string;
  /** Which service's handler runs it (e.g. `schedule.run`). */
  type: string;
  /** Plain JSON. */
  data: Record<string, unknown>;
}

export interface GroupJob extends GroupJobRequest {
  group: string;
}

/** Runs one job; a throw is logged and the job ends failed (never retried). */
export type GroupJobHandler = (job: GroupJob) => Promise<void>;

/** `duplicate`: a job with this key exists (waiting, running or recently finished); nothing was queued. */
export type SendOutcome = 'queued' | 'duplicate';

export interface SendOptions {
  /**
   * Requeue when the key's job can no longer run (it finished, or its
   * consumer went away while it ran): for a takeover, whose caller has its own
   * record of whether the work was done (a run row).
   */
  replace?: boolean;
}

export interface GroupJobQueue {
  /** `pg-boss` or `in-process`, for logs and status. */
  readonly kind: 'pg-boss' | 'in-process';
  /** Whether waiting jobs outlive the process (pg-boss) or die with it (in-process). */
  readonly durable: boolean;
  /** Queues a job for a group (worked here or by another worker). */
  send(group: string, job: GroupJobRequest, options?: SendOptions): Promise<SendOutcome>;
  /**
   * Works the group's jobs one at a time with `handler`, in send order, until
   * `unwork`. Taking a group over first fails the jobs a previous consumer
   * left active (it is gone: the lease says so); they are never run again.
   */
  work(group: string, handler: GroupJobHandler): Promise<void>;
  /** Stops taking the group's jobs and waits for the one running; waiting jobs stay for the next consumer. */
  unwork(group: string): Promise<void>;
  /** Stops taking jobs everywhere (jobs running go on and end with their group) and releases connections. */
  stop(): Promise<void>;
}

/** A UUID derived from the group and key: pg-boss dedupes sends on the job id. */
export function jobIdOf(group: string, key: string): string {
  const hex = createHash('sha256').update(`${group}\0${key}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Where the queue's jobs live for a PostgreSQL store: the store's own server and database. */
export interface PgConnection {
  connectionString?: string;
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
}

/** The PostgreSQL connection of a typeorm DataSource's options, or undefined for another database. */
export function pgConnectionOf(dataSource: DataSource): PgConnection | undefined {
  const options = dataSource.options as { type: string; url?: string; host?: string; port?: number; username?: string; password?: string | (() => string); database?: string };
  if (options.type !== 'postgres') return undefined;
  if (options.url) return { connectionString: options.url };
  return {
    host: options.host,
    port: options.port,
    user: options.username,
    password: typeof options.password === 'function' ? options.password() : options.password,
    database: options.database,
  };
}

/** The queue for a store: pg-boss on PostgreSQL (a send wakes the group's owner through `wakeups`), in-process otherwise. Starts it. */
export async function openGroupJobQueue(dataSource: DataSource, log: (line: string) => void, wakeups?: Wakeups): Promise<GroupJobQueue> {
  const pg = pgConnectionOf(dataSource);
  if (pg) {
    // Loaded only for PostgreSQL: an SQLite gateway never needs pg-boss.
    const { PgBossGroupJobQueue } = await import('./job-queue-pgboss.js');
    return PgBossGroupJobQueue.open(pg, log, wakeups);
  }
  const { InProcessGroupJobQueue } = await import('./job-queue-memory.js');
  return new InProcessGroupJobQueue(log);
}
