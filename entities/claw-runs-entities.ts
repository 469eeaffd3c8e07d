/**
 * The run log (plugins/claw-runs): one row per run of a group, written when
 * the run ended, so "one group never runs two at once" can be checked from
 * start and end times across workers. Portable column types (SQLite and
 * PostgreSQL).
 */
import { EntitySchema } from 'typeorm';
import { bigintNumber } from './columns.js';

export interface ClawRunRow {
  id: number;
  groupName: string;
  sessionId: string;
  /** The runtime's id of the input that started the run (`p3`, `y7`): unique per process, not across processes. */
  inputId: string;
  /** prompt, schedule, channel or system. */
  source: string;
  /** A prompt's idempotency key, or the id of the system input's origin (a scheduled job's id). */
  sourceId: string;
  /** The gateway or worker that ran it. */
  owner: string;
  status: string;
  error: string | null;
  /** Epoch ms, the gateway clock. */
  startedAt: number;
  endedAt: number;
}

export const ClawRunEntity = new EntitySchema<ClawRunRow>({
  name: 'ClawRun',
  tableName: 'claw_runs',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment' },
    groupName: { name: 'group_name', type: 'varchar', length: 64 },
    sessionId: { name: 'session_id', type: 'varchar', length: 36 },
    inputId: { name: 'input_id', type: 'varchar', length: 32 },
    source: { type: 'varchar', length: 16 },
    sourceId: { name: 'source_id', type: 'text' },
    owner: { type: 'varchar', length: 128 },
    status: { type: 'varchar', length: 32 },
    error: { type: 'text', nullable: true },
    startedAt: { name: 'started_at', type: 'bigint', transformer: bigintNumber },
    endedAt: { name: 'ended_at', type: 'bigint', transformer: bigintNumber },
  },
  indices: [
    { name: 'idx_claw_runs_group_id', columns: ['groupName', 'id'] },
    { name: 'idx_claw_runs_group_started', columns: ['groupName', 'startedAt'] },
  ],
  foreignKeys: [{ target: 'ClawGroup', columnNames: ['group_name'], referencedColumnNames: ['name'], name: 'fk_claw_runs_group' }],
});

export const CLAW_RUNS_ENTITIES = [ClawRunEntity];
