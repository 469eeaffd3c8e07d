/**
 * The scheduler's and the resets' tables (plugins/claw-scheduler), in the
 * same portable column types as the rest of the claw store. A job's next due
 * time and a run's "running" row are committed before the run starts, so a
 * crash mid-run is found and recorded as interrupted, never re-run silently.
 * `(job_id, due_at)` is unique: one occurrence of a job is claimed by one
 * insert, whichever worker makes it.
 */
import { EntitySchema } from 'typeorm';
import { bigintNumber } from './columns.js';

const GROUP_NAME_CHARS = 64;
const UUID_CHARS = 36;

export interface ClawScheduleJobRow {
  id: string;
  groupName: string;
  /** Unique within the group. */
  name: string;
  /** "cron", "every" or "at". */
  kind: string;
  cron: string | null;
  /** The cron expression's IANA zone. */
  timezone: string | null;
  everySeconds: number | null;
  /** The one-shot's time (epoch ms). */
  runAt: number | null;
  /** "active" (the group's active session) or "isolated" (a fresh session per run, never made active). */
  target: string;
  prompt: string;
  /** How late a missed occurrence may still run once after downtime. */
  graceSeconds: number;
  paused: boolean;
  /** The next occurrence (epoch ms); null once a one-shot has run, or while paused. */
  nextRunAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export const ClawScheduleJobEntity = new EntitySchema<ClawScheduleJobRow>({
  name: 'ClawScheduleJob',
  tableName: 'claw_schedule_jobs',
  columns: {
    id: { type: 'varchar', length: UUID_CHARS, primary: true },
    groupName: { name: 'group_name', type: 'varchar', length: GROUP_NAME_CHARS },
    name: { type: 'varchar', length: 64 },
    kind: { type: 'varchar', length: 16 },
    cron: { type: 'text', nullable: true },
    timezone: { type: 'varchar', length: 64, nullable: true },
    everySeconds: { name: 'every_seconds', type: 'integer', nullable: true },
    runAt: { name: 'run_at', type: 'bigint', nullable: true, transformer: bigintNumber },
    target: { type: 'varchar', length: 16 },
    prompt: { type: 'text' },
    graceSeconds: { name: 'grace_seconds', type: 'integer' },
    paused: { type: 'boolean' },
    nextRunAt: { name: 'next_run_at', type: 'bigint', nullable: true, transformer: bigintNumber },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintNumber },
    updatedAt: { name: 'updated_at', type: 'bigint', transformer: bigintNumber },
  },
  indices: [
    { name: 'idx_claw_schedule_jobs_group_name', columns: ['groupName', 'name'], unique: true },
    { name: 'idx_claw_schedule_jobs_next', columns: ['nextRunAt'] },
  ],
  foreignKeys: [{ target: 'ClawGroup', columnNames: ['group_name'], referencedColumnNames: ['name'], name: 'fk_claw_schedule_jobs_group' }],
});

export interface ClawScheduleRunRow {
  id: number;
  jobId: string;
  groupName: string;
  /** The occurrence this row is for (epoch ms); for a manual run, when it was asked for. */
  dueAt: number;
  /** "schedule", "catch-up" (after downtime, within the grace) or "manual" (run-now). */
  trigger: string;
  /** "running", "completed", "error", "aborted", "interrupted", "skipped" or "missed". */
  status: string;
  sessionId: string | null;
  error: string | null;
  startedAt: number | null;
  endedAt: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  createdAt: number;
}

export const ClawScheduleRunEntity = new EntitySchema<ClawScheduleRunRow>({
  name: 'ClawScheduleRun',
  tableName: 'claw_schedule_runs',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment' },
    jobId: { name: 'job_id', type: 'varchar', length: UUID_CHARS },
    groupName: { name: 'group_name', type: 'varchar', length: GROUP_NAME_CHARS },
    dueAt: { name: 'due_at', type: 'bigint', transformer: bigintNumber },
    trigger: { name: 'cause', type: 'varchar', length: 16 },
    status: { type: 'varchar', length: 16 },
    sessionId: { name: 'session_id', type: 'varchar', length: UUID_CHARS, nullable: true },
    error: { type: 'text', nullable: true },
    startedAt: { name: 'started_at', type: 'bigint', nullable: true, transformer: bigintNumber },
    endedAt: { name: 'ended_at', type: 'bigint', nullable: true, transformer: bigintNumber },
    inputTokens: { name: 'input_tokens', type: 'bigint', nullable: true, transformer: bigintNumber },
    outputTokens: { name: 'output_tokens', type: 'bigint', nullable: true, transformer: bigintNumber },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintNumber },
  },
  indices: [
    { name: 'idx_claw_schedule_runs_occurrence', columns: ['jobId', 'dueAt', 'trigger'], unique: true },
    { name: 'idx_claw_schedule_runs_status', columns: ['groupName', 'status'] },
  ],
  foreignKeys: [
    { target: 'ClawScheduleJob', columnNames: ['job_id'], referencedColumnNames: ['id'], name: 'fk_claw_schedule_runs_job' },
    { target: 'ClawGroup', columnNames: ['group_name'], referencedColumnNames: ['name'], name: 'fk_claw_schedule_runs_group' },
  ],
});

export interface ClawResetStateRow {
  groupName: string;
  /** The active session the resets last saw. */
  sessionId: string;
  /** When it became active as far as resets are concerned (created, reset to, or explicitly resumed). */
  since: number;
}

export const ClawResetStateEntity = new EntitySchema<ClawResetStateRow>({
  name: 'ClawResetState',
  tableName: 'claw_reset_state',
  columns: {
    groupName: { name: 'group_name', type: 'varchar', length: GROUP_NAME_CHARS, primary: true },
    sessionId: { name: 'session_id', type: 'varchar', length: UUID_CHARS },
    since: { type: 'bigint', transformer: bigintNumber },
  },
  foreignKeys: [{ target: 'ClawGroup', columnNames: ['group_name'], referencedColumnNames: ['name'], name: 'fk_claw_reset_state_group' }],
});

export const CLAW_SCHEDULER_ENTITIES = [ClawScheduleJobEntity, ClawScheduleRunEntity, ClawResetStateEntity];
