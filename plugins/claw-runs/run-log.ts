/**
 * The run log's rows: written when a run ended, listed newest first, and
 * pruned per group past the retention bounds (LIMITS). Raw portable SQL
 * through the session store, as the other claw tables.
 */
import type { RunEndedInfo, RunInputSource } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import type { SessionStore, Sql } from '../sessions/tokens.js';

/** Where a run's input came from, as the run log names it. */
export type RunSource = 'prompt' | 'schedule' | 'channel' | 'system';

/** One recorded run. */
export interface RunRecord {
  id: number;
  group: string;
  sessionId: string;
  /** The runtime's id of the input (`p3`, `y7`): unique within one gateway process only. */
  inputId: string;
  source: RunSource;
  /** A prompt's idempotency key, or the id of the system input's origin (a scheduled job's id). */
  sourceId: string;
  /** The gateway or worker that ran it. */
  owner: string;
  status: string;
  error: string | null;
  /** Epoch ms, the gateway clock of the owner. */
  startedAt: number;
  endedAt: number;
}

interface RunRow {
  id: number | string;
  group_name: string;
  session_id: string;
  input_id: string;
  source: string;
  source_id: string;
  owner: string;
  status: string;
  error: string | null;
  started_at: number | string;
  ended_at: number | string;
}

const COLUMNS = 'id, group_name, session_id, input_id, source, source_id, owner, status, error, started_at, ended_at';
const DAY_MS = 24 * 3600 * 1000;

/** The prefix of a channel message's idempotency key (plugins/channels `channelInputKey`). */
const CHANNEL_KEY_PREFIX = 'channel:';

/** The run log's name for a run's source, and the id it keeps of it. */
export function describeSource(source: RunInputSource): { source: RunSource; sourceId: string } {
  if (source.kind === 'prompt') return { source: source.key.startsWith(CHANNEL_KEY_PREFIX) ? 'channel' : 'prompt', sourceId: source.key };
  return { source: source.origin === 'schedule' ? 'schedule' : 'system', sourceId: source.origin === 'schedule' ? source.id : `${source.origin}:${source.id}` };
}

function toRecord(row: RunRow): RunRecord {
  return {
    id: Number(row.id),
    group: row.group_name,
    sessionId: row.session_id,
    inputId: row.input_id,
    source: row.source as RunSource,
    sourceId: row.source_id,
    owner: row.owner,
    status: row.status,
    error: row.error,
    startedAt: Number(row.started_at),
    endedAt: Number(row.ended_at),
  };
}

/** How long a group's rows are kept: the newest `rowsPerGroup`, none older than `days`. */
export interface RunLogRetention {
  days: number;
  rowsPerGroup: number;
  /** Prune a group's rows with its first run recorded and then every this-many-th (default LIMITS.clawRunLogPruneEvery). */
  pruneEvery?: number;
}

export class RunLog {
  constructor(
    private readonly store: SessionStore,
    private readonly retention: RunLogRetention = { days: LIMITS.clawRunLogDays, rowsPerGroup: LIMITS.clawRunLogRowsPerGroup },
  ) {}

  /** Runs recorded per group since its rows were last pruned by this log. */
  readonly #sincePrune = new Map<string, number>();

  /**
   * Records an ended run in one transaction (one commit per run), and prunes its group's rows
   * past the retention bounds in the same one with the group's first run recorded here and then
   * every `pruneEvery`-th (LIMITS.clawRunLogPruneEvery): the table stays bounded without a timer. Only the
   * group's owner writes its rows, so the transaction runs READ COMMITTED.
   */
  async record(run: RunEndedInfo, owner: string): Promise<void> {
    const { source, sourceId } = describeSource(run.source);
    const since = this.#sincePrune.get(run.group);
    const prune = since === undefined || since + 1 >= (this.retention.pruneEvery ?? LIMITS.clawRunLogPruneEvery);
    await this.store.withTransaction(
      async (sql) => {
        await sql.run(
          `INSERT INTO claw_runs (group_name, session_id, input_id, source, source_id, owner, status, error, started_at, ended_at)
           VALUES (:group, :sessionId, :inputId, :source, :sourceId, :owner, :status, :error, :startedAt, :endedAt)`,
          { group: run.group, sessionId: run.sessionId, inputId: run.inputId, source, sourceId, owner, status: run.status, error: run.errorMessage ?? null, startedAt: run.startedAt, endedAt: run.endedAt },
        );
        if (prune) await this.#prune(sql, run.group, run.endedAt);
      },
      { rowLocks: true },
    );
    this.#sincePrune.set(run.group, prune ? 0 : since! + 1);
  }

  /** Deletes a group's rows past the retention bounds, as of `now`; returns how many. */
  async prune(group: string, now: number): Promise<number> {
    return this.store.withTransaction((sql) => this.#prune(sql, group, now));
  }

  #prune(sql: Sql, group: string, now: number): Promise<number> {
    return sql.run(
      `DELETE FROM claw_runs WHERE group_name = :group AND (started_at < :cutoff OR id <= (SELECT id FROM claw_runs WHERE group_name = :group ORDER BY id DESC LIMIT 1 OFFSET :keep))`,
      { group, cutoff: now - this.retention.days * DAY_MS, keep: this.retention.rowsPerGroup },
    );
  }

  /** Runs newest first: of one group or of all, older than `beforeId` when given. */
  async list(options: { group?: string; limit: number; beforeId?: number }): Promise<RunRecord[]> {
    const where = [options.group === undefined ? '' : 'group_name = :group', options.beforeId === undefined ? '' : 'id < :beforeId'].filter(Boolean);
    const rows = await this.store.withRead((sql) =>
      sql.all<RunRow>(`SELECT ${COLUMNS} FROM claw_runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT :limit`, {
        limit: options.limit,
        ...(options.group === undefined ? {} : { group: options.group }),
        ...(options.beforeId === undefined ? {} : { beforeId: options.beforeId }),
      }),
    );
    return rows.map(toRecord);
  }
}
