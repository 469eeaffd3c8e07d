/**
 * The scheduler's durable state: jobs and their run rows, through the session
 * store's connections (raw portable SQL, as the store does). Every
 * step that matters is one transaction: claiming an occurrence (its run row
 * and the job's next due time together), starting it, finishing it.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCodes, XdogError, type Usage } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import type { SessionStore, Sql } from '../sessions/tokens.js';
import type { JobTiming } from './timing.js';

export type JobTarget = 'active' | 'isolated';
export type RunStatus = 'queued' | 'running' | 'completed' | 'error' | 'aborted' | 'interrupted' | 'skipped' | 'missed';
export type RunTrigger = 'schedule' | 'catch-up' | 'manual';

export interface Job {
  id: string;
  group: string;
  name: string;
  timing: JobTiming;
  target: JobTarget;
  prompt: string;
  graceSeconds: number;
  paused: boolean;
  /** Epoch ms; null once a one-shot ran (or while paused). */
  nextRunAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface JobRun {
  id: number;
  jobId: string;
  group: string;
  dueAt: number;
  trigger: RunTrigger;
  status: RunStatus;
  sessionId: string | null;
  error: string | null;
  startedAt: number | null;
  endedAt: number | null;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  createdAt: number;
}

interface JobRow {
  id: string;
  group_name: string;
  name: string;
  kind: string;
  cron: string | null;
  timezone: string | null;
  every_seconds: number | null;
  run_at: number | string | null;
  target: string;
  prompt: string;
  grace_seconds: number;
  paused: boolean | number;
  next_run_at: number | string | null;
  created_at: number | string;
  updated_at: number | string;
}

interface RunRow {
  id: number;
  job_id: string;
  group_name: string;
  due_at: number | string;
  cause: string;
  status: string;
  session_id: string | null;
  error: string | null;
  started_at: number | string | null;
  ended_at: number | string | null;
  input_tokens: number | string | null;
  output_tokens: number | string | null;
  created_at: number | string;
}

const JOB_COLUMNS = 'id, group_name, name, kind, cron, timezone, every_seconds, run_at, target, prompt, grace_seconds, paused, next_run_at, created_at, updated_at';
const RUN_COLUMNS = 'id, job_id, group_name, due_at, cause, status, session_id, error, started_at, ended_at, input_tokens, output_tokens, created_at';

/** PostgreSQL returns bigint as text. */
const num = (value: number | string | null): number | null => (value === null ? null : Number(value));

function toJob(row: JobRow): Job {
  const createdAt = num(row.created_at)!;
  const timing: JobTiming =
    row.kind === 'cron'
      ? { kind: 'cron', cron: row.cron!, timezone: row.timezone! }
      : row.kind === 'every'
        ? { kind: 'every', everySeconds: row.every_seconds!, anchor: createdAt }
        : { kind: 'at', runAt: num(row.run_at)! };
  return {
    id: row.id,
    group: row.group_name,
    name: row.name,
    timing,
    target: row.target as JobTarget,
    prompt: row.prompt,
    graceSeconds: row.grace_seconds,
    paused: Boolean(row.paused),
    nextRunAt: num(row.next_run_at),
    createdAt,
    updatedAt: num(row.updated_at)!,
  };
}

function toRun(row: RunRow): JobRun {
  const startedAt = num(row.started_at);
  const endedAt = num(row.ended_at);
  return {
    id: row.id,
    jobId: row.job_id,
    group: row.group_name,
    dueAt: num(row.due_at)!,
    trigger: row.cause as RunTrigger,
    status: row.status as RunStatus,
    sessionId: row.session_id,
    error: row.error,
    startedAt,
    endedAt,
    durationMs: startedAt !== null && endedAt !== null ? endedAt - startedAt : null,
    inputTokens: num(row.input_tokens),
    outputTokens: num(row.output_tokens),
    createdAt: num(row.created_at)!,
  };
}

export interface NewJob {
  group: string;
  name: string;
  timing: JobTiming;
  target: JobTarget;
  prompt: string;
  graceSeconds: number;
  paused: boolean;
  /** Null when the job starts paused. */
  firstRunAt: number | null;
}

/** One due occurrence to claim: `missed` records it as missed (past its grace) instead of running it. */
export interface Occurrence {
  dueAt: number;
  trigger: RunTrigger;
  missed?: string;
  /** Earlier occurrences that fell in downtime, recorded as one missed row (the first one's time). */
  earlierMissed?: { dueAt: number; error: string };
}

/** What a claim decided for one due occurrence. */
export type Claim = { outcome: 'run'; run: JobRun } | { outcome: 'skipped' | 'missed'; run: JobRun };

/** The job by name; `lock` takes its row lock first (Sql.forUpdate), for a transaction whose writes depend on it. */
async function requireJob(sql: Sql, group: string, name: string, lock = false): Promise<Job> {
  const [row] = await sql.all<JobRow>(`SELECT ${JOB_COLUMNS} FROM claw_schedule_jobs WHERE group_name = :group AND name = :name${lock ? sql.forUpdate : ''}`, { group, name });
  if (!row) throw new XdogError(ErrorCodes.NOT_FOUND, `group ${group} has no scheduled job named "${name}"`, { hint: 'list them with `xdog claw schedule list`' });
  return toJob(row);
}

async function insertRun(sql: Sql, run: Omit<JobRun, 'id' | 'durationMs' | 'createdAt' | 'inputTokens' | 'outputTokens'>, now: number): Promise<JobRun> {
  // One statement: the row comes back from the insert (both stores support RETURNING).
  const [row] = await sql.all<RunRow>(
    `INSERT INTO claw_schedule_runs (job_id, group_name, due_at, cause, status, session_id, error, started_at, ended_at, input_tokens, output_tokens, created_at)
     VALUES (:jobId, :group, :dueAt, :trigger, :status, :sessionId, :error, :startedAt, :endedAt, NULL, NULL, :now) RETURNING ${RUN_COLUMNS}`,
    { ...run, now },
  );
  return toRun(row!);
}

/** `IN (:g0, :g1, ...)` with its parameters (group names are few: the configured groups). */
function inList(values: readonly string[]): { list: string; params: Record<string, string> } {
  const params = Object.fromEntries(values.map((value, index) => [`g${index}`, value]));
  return { list: Object.keys(params).map((name) => `:${name}`).join(', '), params };
}

export class JobStore {
  constructor(private readonly store: SessionStore) {}

  async add(job: NewJob, now: number): Promise<Job> {
    return this.store.withTransaction(async (sql) => {
      // The group's row is the lock: adds to one group queue behind each other, so the count and
      // the name check hold; adds to other groups never conflict (the store's jobs have that row by
      // their foreign key).
      await sql.all(`SELECT name FROM claw_groups WHERE name = :group${sql.forUpdate}`, { group: job.group });
      const [{ count }] = (await sql.all<{ count: number | string }>('SELECT COUNT(*) AS count FROM claw_schedule_jobs WHERE group_name = :group', { group: job.group })) as [{ count: number | string }];
      if (Number(count) >= LIMITS.scheduleJobsPerGroup) {
        throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `group ${job.group} already has ${LIMITS.scheduleJobsPerGroup} scheduled jobs, the limit`, { hint: 'remove jobs it no longer needs' });
      }
      const [taken] = await sql.all('SELECT id FROM claw_schedule_jobs WHERE group_name = :group AND name = :name', { group: job.group, name: job.name });
      if (taken) throw new XdogError(ErrorCodes.CONFLICT, `group ${job.group} already has a scheduled job named "${job.name}"`, { hint: 'choose another name, or remove the old job first' });
      const { timing } = job;
      const id = randomUUID();
      await sql.run(
        `INSERT INTO claw_schedule_jobs (${JOB_COLUMNS}) VALUES (:id, :group, :name, :kind, :cron, :timezone, :everySeconds, :runAt, :target, :prompt, :graceSeconds, :paused, :nextRunAt, :now, :now)`,
        {
          id,
          group: job.group,
          name: job.name,
          kind: timing.kind,
          cron: timing.kind === 'cron' ? timing.cron : null,
          timezone: timing.kind === 'cron' ? timing.timezone : null,
          everySeconds: timing.kind === 'every' ? timing.everySeconds : null,
          runAt: timing.kind === 'at' ? timing.runAt : null,
          target: job.target,
          prompt: job.prompt,
          graceSeconds: job.graceSeconds,
          paused: job.paused,
          nextRunAt: job.firstRunAt,
          now,
        },
      );
      return requireJob(sql, job.group, job.name);
    }, { rowLocks: true });
  }

  get(group: string, name: string): Promise<Job> {
    return this.store.withRead((sql) => requireJob(sql, group, name));
  }

  async list(group: string): Promise<Job[]> {
    const rows = await this.store.withRead((sql) => sql.all<JobRow>(`SELECT ${JOB_COLUMNS} FROM claw_schedule_jobs WHERE group_name = :group ORDER BY name`, { group }));
    return rows.map(toJob);
  }

  /** Pauses, or resumes with the next due time the caller computed (from now: a paused span is not caught up). */
  async setPaused(group: string, name: string, paused: boolean, nextRunAt: (job: Job) => number | null, now: number): Promise<Job> {
    return this.store.withTransaction(async (sql) => {
      const job = await requireJob(sql, group, name);
      await sql.run('UPDATE claw_schedule_jobs SET paused = :paused, next_run_at = :next, updated_at = :now WHERE id = :id', { id: job.id, paused, next: paused ? null : nextRunAt(job), now });
      return requireJob(sql, group, name);
    });
  }

  /** Removes a job and its run history; refused while one of its runs is queued or running. */
  async remove(group: string, name: string): Promise<Job> {
    return this.store.withTransaction(async (sql) => {
      const job = await requireJob(sql, group, name);
      const [active] = await sql.all("SELECT id FROM claw_schedule_runs WHERE job_id = :id AND status IN ('queued', 'running')", { id: job.id });
      if (active) throw new XdogError(ErrorCodes.BUSY, `job "${name}" has a run in progress`, { hint: 'pause it, wait for the run to end, then remove it' });
      await sql.run('DELETE FROM claw_schedule_runs WHERE job_id = :id', { id: job.id });
      await sql.run('DELETE FROM claw_schedule_jobs WHERE id = :id', { id: job.id });
      return job;
    });
  }

  /** Unpaused jobs of these groups whose next occurrence is due, oldest first. */
  async due(groups: readonly string[], now: number, limit: number): Promise<Job[]> {
    if (groups.length === 0) return [];
    const { list, params } = inList(groups);
    const rows = await this.store.withRead((sql) =>
      sql.all<JobRow>(`SELECT ${JOB_COLUMNS} FROM claw_schedule_jobs WHERE group_name IN (${list}) AND paused = :paused AND next_run_at IS NOT NULL AND next_run_at <= :now ORDER BY next_run_at, id LIMIT :limit`, {
        ...params,
        paused: false,
        now,
        limit,
      }),
    );
    return rows.map(toJob);
  }

  /** The earliest next due time of any unpaused job of these groups. */
  async nextDueAt(groups: readonly string[]): Promise<number | null> {
    if (groups.length === 0) return null;
    const { list, params } = inList(groups);
    const [row] = await this.store.withRead((sql) => sql.all<{ next: number | string | null }>(`SELECT MIN(next_run_at) AS next FROM claw_schedule_jobs WHERE group_name IN (${list}) AND paused = :paused`, { ...params, paused: false }));
    return num(row?.next ?? null);
  }

  /**
   * Claims one due occurrence, in one transaction: records its run row —
   * "queued" to run, "skipped" when the job still has a run in progress
   * (overlap), "missed" when it is past its grace — and moves the job's next
   * due time on. The unique (job, due time, trigger) key makes a second
   * claim of the same occurrence fail, whoever makes it. On PostgreSQL it
   * locks the job's row and runs READ COMMITTED (rowLocks): claims of one job
   * queue behind each other and see each other's writes once they hold the
   * lock; claims of other jobs never conflict (SERIALIZABLE's predicate locks
   * on the small runs table made them re-run each other).
   */
  async claim(job: Job, occurrence: Occurrence, nextRunAt: number | null, now: number): Promise<Claim> {
    return this.store.withTransaction(async (sql) => {
      const [current] = await sql.all<JobRow>(`SELECT ${JOB_COLUMNS} FROM claw_schedule_jobs WHERE id = :id${sql.forUpdate}`, { id: job.id });
      if (!current || Boolean(current.paused) || num(current.next_run_at) !== job.nextRunAt) {
        throw new XdogError(ErrorCodes.STALE, `job "${job.name}" changed while it was being claimed`);
      }
      await sql.run('UPDATE claw_schedule_jobs SET next_run_at = :next, updated_at = :now WHERE id = :id', { id: job.id, next: nextRunAt, now });
      const base = { jobId: job.id, group: job.group, dueAt: occurrence.dueAt, trigger: occurrence.trigger, sessionId: null, startedAt: null, endedAt: null };
      if (occurrence.earlierMissed) {
        await insertRun(sql, { ...base, dueAt: occurrence.earlierMissed.dueAt, trigger: 'schedule', status: 'missed', error: occurrence.earlierMissed.error }, now);
      }
      if (occurrence.missed) return { outcome: 'missed', run: await insertRun(sql, { ...base, status: 'missed', error: occurrence.missed }, now) };
      const [active] = await sql.all<{ id: number }>("SELECT id FROM claw_schedule_runs WHERE job_id = :id AND status IN ('queued', 'running') ORDER BY id LIMIT 1", { id: job.id });
      if (active) return { outcome: 'skipped', run: await insertRun(sql, { ...base, status: 'skipped', error: `run ${active.id} of this job was still in progress` }, now) };
      return { outcome: 'run', run: await insertRun(sql, { ...base, status: 'queued', error: null }, now) };
    }, { rowLocks: true });
  }

  /** A manual run (run-now): queued now, unless one is in progress. The job's schedule is untouched. */
  async claimManual(group: string, name: string, now: number): Promise<{ job: Job; run: JobRun }> {
    return this.store.withTransaction(async (sql) => {
      // The job's row lock: a claim of the same job waits, and sees this run as in progress.
      const job = await requireJob(sql, group, name, true);
      const [active] = await sql.all<{ id: number }>("SELECT id FROM claw_schedule_runs WHERE job_id = :id AND status IN ('queued', 'running') LIMIT 1", { id: job.id });
      if (active) throw new XdogError(ErrorCodes.BUSY, `job "${name}" already has a run in progress (run ${active.id})`, { hint: 'wait for it to end' });
      const run = await insertRun(sql, { jobId: job.id, group, dueAt: now, trigger: 'manual', status: 'queued', sessionId: null, error: null, startedAt: null, endedAt: null }, now);
      return { job, run };
    }, { rowLocks: true });
  }

  /** The run row and its job (for the worker that executes a queued run). */
  async runWithJob(runId: number): Promise<{ run: JobRun; job: Job } | undefined> {
    return this.store.withRead(async (sql) => {
      const [run] = await sql.all<RunRow>(`SELECT ${RUN_COLUMNS} FROM claw_schedule_runs WHERE id = :id`, { id: runId });
      if (!run) return undefined;
      const [job] = await sql.all<JobRow>(`SELECT ${JOB_COLUMNS} FROM claw_schedule_jobs WHERE id = :id`, { id: run.job_id });
      return job ? { run: toRun(run), job: toJob(job) } : undefined;
    });
  }

  /**
   * Marks a queued run running, committed before its input is handed to the
   * group. False when it is no longer queued (it ran, or was recorded
   * interrupted): the caller must not run it — this is what makes a run
   * happen once, whoever holds a job for it.
   */
  async start(runId: number, sessionId: string | null, now: number): Promise<boolean> {
    // One UPDATE that re-checks its row under the row lock: READ COMMITTED is enough (rowLocks).
    const changed = await this.store.withTransaction((sql) => sql.run("UPDATE claw_schedule_runs SET status = 'running', session_id = :sessionId, started_at = :now WHERE id = :id AND status = 'queued'", { id: runId, sessionId, now }), { rowLocks: true });
    return changed > 0;
  }

  async finish(runId: number, result: { status: RunStatus; error: string | null; sessionId: string | null; usage: Usage | null; endedAt: number }): Promise<void> {
    await this.store.withTransaction((sql) =>
      sql.run(
        `UPDATE claw_schedule_runs SET status = :status, error = :error, session_id = COALESCE(:sessionId, session_id), ended_at = :endedAt,
           started_at = COALESCE(started_at, :endedAt), input_tokens = :input, output_tokens = :output WHERE id = :id`,
        { id: runId, status: result.status, error: result.error, sessionId: result.sessionId, endedAt: result.endedAt, input: result.usage?.input ?? null, output: result.usage?.output ?? null },
      ),
      { rowLocks: true },
    );
  }

  /**
   * When this worker takes a group over (at start, or from a worker that
   * stopped or died): a run the previous owner had started is recorded as
   * interrupted — never run again, it may have had effects. Queued runs
   * (claimed, not started) are returned to be sent again when the job queue
   * is durable (their job may still wait in it); with a queue that died with
   * the previous process they are recorded as interrupted too.
   */
  async takeOver(group: string, now: number, options: { requeue: boolean }): Promise<{ interrupted: JobRun[]; queued: JobRun[] }> {
    return this.store.withTransaction(async (sql) => {
      const interrupted: JobRun[] = [];
      const queued: JobRun[] = [];
      const rows = await sql.all<RunRow>(`SELECT ${RUN_COLUMNS} FROM claw_schedule_runs WHERE group_name = :group AND status IN ('queued', 'running') ORDER BY id`, { group });
      for (const row of rows) {
        if (row.status === 'queued' && options.requeue) {
          queued.push(toRun(row));
          continue;
        }
        const error = row.status === 'running' ? 'the gateway stopped during this run; it is not run again (it may have had effects)' : 'the gateway stopped before this run started';
        await sql.run("UPDATE claw_schedule_runs SET status = 'interrupted', error = :error, ended_at = :now WHERE id = :id AND status = :status", { id: row.id, error, now, status: row.status });
        interrupted.push({ ...toRun(row), status: 'interrupted', error });
      }
      return { interrupted, queued };
    });
  }

  /** Run rows of a group (or one job), newest first. */
  async history(group: string, options: { jobName?: string; limit: number; beforeId?: number }): Promise<JobRun[]> {
    return this.store.withRead(async (sql) => {
      const job = options.jobName === undefined ? undefined : await requireJob(sql, group, options.jobName);
      const rows = await sql.all<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM claw_schedule_runs WHERE group_name = :group ${job ? 'AND job_id = :jobId' : ''} ${options.beforeId ? 'AND id < :beforeId' : ''} ORDER BY id DESC LIMIT :limit`,
        { group, limit: options.limit, ...(job ? { jobId: job.id } : {}), ...(options.beforeId ? { beforeId: options.beforeId } : {}) },
      );
      return rows.map(toRun);
    });
  }
}
