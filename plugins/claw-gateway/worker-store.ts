/**
 * The rows several gateway workers share in the claw store (migration
 * 1765300000000-claw-workers): the workers' registry, method calls handed to
 * a group's owner, relay interest and relayed events. Portable SQL on the
 * store's connections, the same text on SQLite and PostgreSQL.
 */
import type { Sql } from '../sessions/tokens.js';
import type { Notice } from './wakeups.js';

/**
 * `statement` (one that ends in `RETURNING columns`) sending `notice` as well, in the same
 * round trip: PostgreSQL delivers it when the write commits, and folds the identical notices of
 * one transaction into one (a notice per returned row is still one). Without a notice (SQLite,
 * where workers poll) the statement is unchanged.
 */
function withNotice(statement: string, columns: string, notice: Notice | undefined, params: Record<string, unknown>): { text: string; params: Record<string, unknown> } {
  if (!notice) return { text: statement, params };
  return {
    text: `WITH written AS (${statement}) SELECT ${columns}, pg_notify(:noticeChannel, :noticePayload) AS noticed FROM written`,
    params: { ...params, noticeChannel: notice.channel, noticePayload: notice.payload },
  };
}

export interface WorkerRecord {
  id: string;
  name: string;
  pid: number;
  host: string;
  socket: string;
  startedAt: number;
  heartbeatAt: number;
}

interface WorkerRow {
  id: string;
  name: string;
  pid: number | string;
  host: string;
  socket: string;
  started_at: number | string;
  heartbeat_at: number | string;
}

const toWorker = (row: WorkerRow): WorkerRecord => ({
  id: row.id,
  name: row.name,
  pid: Number(row.pid),
  host: row.host,
  socket: row.socket,
  startedAt: Number(row.started_at),
  heartbeatAt: Number(row.heartbeat_at),
});

/** Records the worker, or refreshes its heartbeat (re-registering it if a prune removed it). */
export async function heartbeatWorker(sql: Sql, worker: WorkerRecord): Promise<void> {
  await sql.run(
    `INSERT INTO claw_workers (id, name, pid, host, socket, started_at, heartbeat_at) VALUES (:id, :name, :pid, :host, :socket, :startedAt, :heartbeatAt)
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
    { ...worker },
  );
}

export async function removeWorker(sql: Sql, id: string): Promise<void> {
  await sql.run('DELETE FROM claw_workers WHERE id = :id', { id });
  await sql.run('DELETE FROM claw_relay_interest WHERE worker_id = :id', { id });
}

export async function listWorkers(sql: Sql): Promise<WorkerRecord[]> {
  return (await sql.all<WorkerRow>('SELECT id, name, pid, host, socket, started_at, heartbeat_at FROM claw_workers ORDER BY started_at, id')).map(toWorker);
}

/** Forgets workers silent since `before` (their leases expired long ago; listing them helps nobody). */
export async function pruneWorkers(sql: Sql, before: number): Promise<void> {
  await sql.run('DELETE FROM claw_relay_interest WHERE expires_at < :before', { before });
  await sql.run('DELETE FROM claw_workers WHERE heartbeat_at < :before', { before });
}

// handoffs

export type HandoffState = 'pending' | 'running' | 'done' | 'abandoned';

export interface HandoffRequest {
  id: string;
  group: string;
  method: string;
  /** JSON text. */
  params: string;
  fromWorker: string;
  createdAt: number;
}

export interface HandoffAnswer {
  state: HandoffState;
  /** JSON text of the result, when done without error. */
  result: string | null;
  /** JSON text of the error, when done with one. */
  error: string | null;
}

interface HandoffRow {
  id: string;
  group_name: string;
  method: string;
  params: string;
  from_worker: string;
  created_at: number | string;
}

/** Writes a handoff; with `notice`, the owner's wake-up goes in the same statement. */
export async function insertHandoff(sql: Sql, request: HandoffRequest, notice?: Notice): Promise<void> {
  const { text, params } = withNotice(
    `INSERT INTO claw_handoffs (id, group_name, method, params, from_worker, created_at, state) VALUES (:id, :group, :method, :params, :fromWorker, :createdAt, 'pending') RETURNING id`,
    'id',
    notice,
    { ...request },
  );
  await sql.all(text, params);
}

/** `:prefix0, :prefix1, ...` and their values, for an IN list of `values`. */
function inList(prefix: string, values: readonly string[]): { text: string; params: Record<string, string> } {
  const params = Object.fromEntries(values.map((value, index) => [`${prefix}${index}`, value]));
  return { text: values.map((_, index) => `:${prefix}${index}`).join(', '), params };
}

/**
 * Claims, in one statement, up to `limit` pending handoffs of `groups` (oldest first): they move to
 * `running` and are returned. A caller abandoning one at the same moment and this claim never both
 * win (each moves it only from `pending`).
 */
export async function claimHandoffs(sql: Sql, groups: readonly string[], limit: number): Promise<HandoffRequest[]> {
  if (groups.length === 0) return [];
  const list = inList('g', groups);
  const rows = await sql.all<HandoffRow>(
    `UPDATE claw_handoffs SET state = 'running'
     WHERE state = 'pending' AND id IN (SELECT id FROM claw_handoffs WHERE state = 'pending' AND group_name IN (${list.text}) ORDER BY created_at, id LIMIT ${Math.trunc(limit)})
     RETURNING id, group_name, method, params, from_worker, created_at`,
    list.params,
  );
  return rows
    .map((row) => ({ id: row.id, group: row.group_name, method: row.method, params: row.params, fromWorker: row.from_worker, createdAt: Number(row.created_at) }))
    .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
}

/** The answer of a finished handoff, taken (its row deleted) in one statement; undefined while it is not done. */
export async function takeAnswer(sql: Sql, id: string): Promise<Pick<HandoffAnswer, 'result' | 'error'> | undefined> {
  const [row] = await sql.all<Pick<HandoffAnswer, 'result' | 'error'>>(`DELETE FROM claw_handoffs WHERE id = :id AND state = 'done' RETURNING result, error`, { id });
  return row;
}

/** Moves a handoff from `from` to `to`; false when another party moved it first (the owner claims, the caller abandons). */
export async function moveHandoff(sql: Sql, id: string, from: HandoffState, to: HandoffState): Promise<boolean> {
  return (await sql.run('UPDATE claw_handoffs SET state = :to WHERE id = :id AND state = :from', { id, from, to })) === 1;
}

/** Writes a handoff's answer; with `notice`, the caller's wake-up goes in the same statement (sent only if the row was there). */
export async function finishHandoff(sql: Sql, id: string, answer: { result: string | null; error: string | null }, notice?: Notice): Promise<void> {
  const { text, params } = withNotice(`UPDATE claw_handoffs SET state = 'done', result = :result, error = :error WHERE id = :id RETURNING id`, 'id', notice, { id, ...answer });
  await sql.all(text, params);
}

/** Drops handoffs created before `before` (a caller that died never deleted its answer). */
export async function pruneHandoffs(sql: Sql, before: number): Promise<void> {
  await sql.run(`DELETE FROM claw_handoffs WHERE created_at < :before AND state <> 'running'`, { before });
}

// relay

/** Says, in one statement, that `worker` has clients following each of `groups` until `expiresAt` (with `notice`, their owners are told in it). */
export async function recordInterest(sql: Sql, groups: readonly string[], worker: string, expiresAt: number, notice?: Notice): Promise<void> {
  if (groups.length === 0) return;
  const list = groups.map((_, index) => `(:g${index}, :worker, :expiresAt)`).join(', ');
  const params = Object.fromEntries(groups.map((group, index) => [`g${index}`, group]));
  const statement = withNotice(
    `INSERT INTO claw_relay_interest (group_name, worker_id, expires_at) VALUES ${list}
     ON CONFLICT (group_name, worker_id) DO UPDATE SET expires_at = excluded.expires_at RETURNING group_name`,
    'group_name',
    notice,
    { ...params, worker, expiresAt },
  );
  await sql.all(statement.text, statement.params);
}

export async function dropInterest(sql: Sql, group: string, worker: string): Promise<void> {
  await sql.run('DELETE FROM claw_relay_interest WHERE group_name = :group AND worker_id = :worker', { group, worker });
}

/** Groups other workers than `self` follow now. */
export async function remoteInterest(sql: Sql, self: string, now: number): Promise<Set<string>> {
  const rows = await sql.all<{ group_name: string }>('SELECT DISTINCT group_name FROM claw_relay_interest WHERE worker_id <> :self AND expires_at > :now', { self, now });
  return new Set(rows.map((row) => row.group_name));
}

export interface RelayEvent {
  id: number;
  group: string;
  sessionId: string | null;
  method: string;
  /** JSON text. */
  params: string;
}

interface RelayRow {
  id: number | string;
  group_name: string;
  session_id: string | null;
  method: string;
  params: string;
}

/** Writes relayed events in one statement (with `notice`, the followers' wake-up too); returns, per group, the highest id its rows got. */
export async function insertRelayEvents(sql: Sql, events: ReadonlyArray<Omit<RelayEvent, 'id'>>, now: number, notice?: Notice): Promise<Map<string, number>> {
  const highest = new Map<string, number>();
  if (events.length === 0) return highest;
  const params: Record<string, unknown> = { now };
  const values = events.map((event, index) => {
    Object.assign(params, { [`g${index}`]: event.group, [`s${index}`]: event.sessionId, [`m${index}`]: event.method, [`p${index}`]: event.params });
    return `(:g${index}, :s${index}, :m${index}, :p${index}, :now)`;
  });
  const statement = withNotice(`INSERT INTO claw_relay_events (group_name, session_id, method, params, created_at) VALUES ${values.join(', ')} RETURNING id, group_name`, 'id, group_name', notice, params);
  const rows = await sql.all<{ id: number | string; group_name: string }>(statement.text, statement.params);
  for (const row of rows) highest.set(row.group_name, Math.max(highest.get(row.group_name) ?? 0, Number(row.id)));
  return highest;
}

/**
 * A group's relayed events after `afterId`, in order: at most `limit` rows
 * and, past the first, no more than `maxBytes` of params (a row may hold a
 * large event); `more` when rows may follow. Ids grow per group: one owner
 * writes a group's events, serialized.
 */
export async function relayEventsAfter(sql: Sql, group: string, afterId: number, limit: number, maxBytes: number): Promise<{ events: RelayEvent[]; more: boolean }> {
  // One statement (it runs for every batch a follower reads): the sizes (octet_length reads no row's text on either
  // store) and their running sum pick the batch, and only the rows picked are joined back for their text, so a batch
  // never loads more than it may hold. The first row always comes, however large; `total` says whether more wait.
  const rows = await sql.all<RelayRow & { total: number | string }>(
    `SELECT e.id, e.group_name, e.session_id, e.method, e.params, s.total FROM (
       SELECT id, SUM(size) OVER (ORDER BY id) AS running, ROW_NUMBER() OVER (ORDER BY id) AS n, COUNT(*) OVER () AS total
       FROM (SELECT id, octet_length(params) AS size FROM claw_relay_events WHERE group_name = :group AND id > :afterId ORDER BY id LIMIT ${Math.trunc(limit)}) batch
     ) s JOIN claw_relay_events e ON e.id = s.id
     WHERE s.n = 1 OR s.running <= :maxBytes ORDER BY e.id`,
    { group, afterId, maxBytes },
  );
  const events = rows.map((row) => ({ id: Number(row.id), group: row.group_name, sessionId: row.session_id, method: row.method, params: row.params }));
  const total = rows.length ? Number(rows[0]!.total) : 0;
  return { events, more: events.length < total || total === Math.trunc(limit) };
}

/** The newest relayed event id of a group (0 when none): where a new follower starts. */
export async function lastRelayId(sql: Sql, group: string): Promise<number> {
  const [row] = await sql.all<{ id: number | string | null }>('SELECT MAX(id) AS id FROM claw_relay_events WHERE group_name = :group', { group });
  return Number(row?.id ?? 0);
}

export async function pruneRelayEvents(sql: Sql, before: number): Promise<void> {
  await sql.run('DELETE FROM claw_relay_events WHERE created_at < :before', { before });
}
