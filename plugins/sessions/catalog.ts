/** Groups and the session catalog: rows, lookups, the active-session pointer and its fencing. */
import { randomUUID } from 'node:crypto';
import { ClawGroupNameSchema, ErrorCodes, LIMITS, XdogError } from '../../core/index.js';
import { checkSessionName, foldForSearch, LIKE_ESCAPE, searchPattern } from './names.js';
import { SESSION_COLUMNS, toGroup, toSession, type GroupRow, type SessionRow } from './rows.js';
import type { Sql } from './sql.js';
import type { Expectation, GroupRecord, NewSessionOptions, SessionRecord, SessionState } from './types.js';

export function checkGroupName(group: string): string {
  const parsed = ClawGroupNameSchema.safeParse(group);
  if (!parsed.success) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `invalid group name ${JSON.stringify(group)}: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

export async function findGroup(sql: Sql, group: string): Promise<GroupRecord | undefined> {
  const [row] = await sql.all<GroupRow>('SELECT name, active_session_id, revision FROM claw_groups WHERE name = :group', { group });
  return row && toGroup(row);
}

export async function requireGroup(sql: Sql, group: string): Promise<GroupRecord> {
  const found = await findGroup(sql, group);
  if (!found) throw new XdogError(ErrorCodes.NOT_FOUND, `no claw group "${group}" in the store`, { hint: 'groups are created from the claw.groups section of the config' });
  return found;
}

export async function ensureGroup(sql: Sql, group: string, now: number): Promise<GroupRecord> {
  checkGroupName(group);
  await sql.run('INSERT INTO claw_groups (name, active_session_id, revision, created_at) VALUES (:group, NULL, 0, :now) ON CONFLICT (name) DO NOTHING', { group, now });
  return requireGroup(sql, group);
}

export async function listGroups(sql: Sql): Promise<GroupRecord[]> {
  return (await sql.all<GroupRow>('SELECT name, active_session_id, revision FROM claw_groups ORDER BY name')).map(toGroup);
}

/** The session, or NOT_FOUND; `lock` holds its row until the transaction ends (writers of it wait). */
export async function requireSession(sql: Sql, sessionId: string, lock = false): Promise<SessionRecord> {
  const [row] = await sql.all<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM claw_sessions WHERE id = :id${lock ? sql.forUpdate : ''}`, { id: String(sessionId) });
  if (!row) throw new XdogError(ErrorCodes.NOT_FOUND, `no claw session ${JSON.stringify(sessionId)}`, { hint: 'list sessions with `xdog claw sessions list`' });
  return toSession(row);
}

/** Refuses (STALE) when the group's active session is not the one the client expected. */
export function checkExpectation(group: GroupRecord, expectation: Expectation | undefined): void {
  if (!expectation || !('expectedActiveSessionId' in expectation)) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `changing the active session of group "${group.name}" needs the expected active-session id`);
  }
  if (expectation.expectedActiveSessionId !== group.activeSessionId) {
    throw new XdogError(
      ErrorCodes.STALE,
      `group "${group.name}" has active session ${group.activeSessionId ?? '(none)'}, not the expected ${expectation.expectedActiveSessionId ?? '(none)'}`,
      { hint: 'refresh the group status and retry against its current session', details: { activeSessionId: group.activeSessionId, revision: group.revision } },
    );
  }
}

/** Points the group at `sessionId` (or none), bumping its revision. */
export async function setActive(sql: Sql, group: GroupRecord, sessionId: string | null): Promise<GroupRecord> {
  await sql.run('UPDATE claw_groups SET active_session_id = :session, revision = revision + 1 WHERE name = :group', { session: sessionId, group: group.name });
  return { name: group.name, activeSessionId: sessionId, revision: group.revision + 1 };
}

export interface SessionSeed {
  group: string;
  name: string | null;
  summary: string | null;
  parentSessionId: string | null;
  forkEntryId: number | null;
  state: SessionState;
  now: number;
}

/** Inserts a session row (empty, no leaf) and its state row. */
export async function insertSession(sql: Sql, seed: SessionSeed): Promise<string> {
  const id = randomUUID();
  await sql.run(
    `INSERT INTO claw_sessions (id, group_name, name, name_folded, summary, summary_folded, parent_session_id, fork_entry_id, leaf_entry_id, archived, message_count, created_at, updated_at)
     VALUES (:id, :group, :name, :nameFolded, :summary, :summaryFolded, :parent, :forkEntry, NULL, :archived, 0, :now, :now)`,
    {
      id,
      group: seed.group,
      name: seed.name,
      nameFolded: foldForSearch(seed.name),
      summary: seed.summary,
      summaryFolded: foldForSearch(seed.summary),
      parent: seed.parentSessionId,
      forkEntry: seed.forkEntryId,
      archived: false,
      now: seed.now,
    },
  );
  await sql.run(
    'INSERT INTO claw_session_state (session_id, model, thinking, skills, plan, extension_entries) VALUES (:id, :model, :thinking, :skills, :plan, :extensions)',
    {
      id,
      model: seed.state.model,
      thinking: seed.state.thinking,
      skills: JSON.stringify(seed.state.skills),
      plan: seed.state.plan === null ? null : JSON.stringify(seed.state.plan),
      extensions: JSON.stringify(seed.state.extensionEntries),
    },
  );
  return id;
}

export function checkNewSessionOptions(options: NewSessionOptions): SessionState & { name: string | null } {
  if (typeof options?.model !== 'string' || !options.model) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'a new session needs a model ("provider/model")');
  const skills = options.skills ?? [];
  if (!Array.isArray(skills) || skills.some((skill) => typeof skill !== 'string' || !skill)) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'skills must be a list of skill slugs');
  }
  return { model: options.model, thinking: options.thinking ?? null, skills: [...skills], plan: null, extensionEntries: {}, name: checkSessionName(options.name ?? null) };
}

export async function touch(sql: Sql, sessionId: string, now: number): Promise<void> {
  await sql.run('UPDATE claw_sessions SET updated_at = :now WHERE id = :id', { id: sessionId, now });
}

export async function setName(sql: Sql, sessionId: string, name: string | null, now: number): Promise<void> {
  await sql.run('UPDATE claw_sessions SET name = :name, name_folded = :folded, updated_at = :now WHERE id = :id', { id: sessionId, name, folded: foldForSearch(name), now });
}

export async function setSummary(sql: Sql, sessionId: string, summary: string | null): Promise<void> {
  await sql.run('UPDATE claw_sessions SET summary = :summary, summary_folded = :folded WHERE id = :id', { id: sessionId, summary, folded: foldForSearch(summary) });
}

export async function setArchived(sql: Sql, sessionId: string, archived: boolean, now: number): Promise<void> {
  await sql.run('UPDATE claw_sessions SET archived = :archived, updated_at = :now WHERE id = :id', { id: sessionId, archived, now });
}

export interface PageOptions {
  includeArchived?: boolean;
  limit?: number;
  offset?: number;
}

/** A page size: `limit` when it is a positive integer up to `max`, else `max`; over it is LIMIT_EXCEEDED. */
export function pageLimit(limit: number | undefined, max: number = LIMITS.clawSessionsPerPage, what = 'sessions', hint = 'page with offset'): number {
  const value = limit ?? max;
  if (!Number.isInteger(value) || value < 1) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `limit must be a positive integer, not ${value}`);
  if (value > max) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `limit ${value} is over the ${max} ${what} one page may hold`, { hint });
  return value;
}

export async function listSessions(sql: Sql, group: string, options: PageOptions = {}): Promise<SessionRecord[]> {
  const offset = options.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `offset must be a non-negative integer, not ${offset}`);
  const archived = options.includeArchived ? '' : 'AND archived = :archived';
  const rows = await sql.all<SessionRow>(
    `SELECT ${SESSION_COLUMNS} FROM claw_sessions WHERE group_name = :group ${archived} ORDER BY updated_at DESC, id LIMIT :limit OFFSET :offset`,
    { group, archived: false, limit: pageLimit(options.limit), offset },
  );
  return rows.map(toSession);
}

/** Literal, case-insensitive; name matches first, then summary-only matches; newest first within each. */
export async function searchSessions(sql: Sql, group: string, query: string, options: PageOptions = {}): Promise<SessionRecord[]> {
  const pattern = searchPattern(query);
  const archived = options.includeArchived ? '' : 'AND archived = :archived';
  const rows = await sql.all<SessionRow>(
    `SELECT ${SESSION_COLUMNS} FROM claw_sessions
     WHERE group_name = :group ${archived}
       AND (name_folded LIKE :pattern ESCAPE '${LIKE_ESCAPE}' OR summary_folded LIKE :pattern ESCAPE '${LIKE_ESCAPE}')
     ORDER BY CASE WHEN name_folded LIKE :pattern ESCAPE '${LIKE_ESCAPE}' THEN 0 ELSE 1 END, updated_at DESC, id
     LIMIT :limit`,
    { group, archived: false, pattern, limit: pageLimit(options.limit) },
  );
  return rows.map(toSession);
}
