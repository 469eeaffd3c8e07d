/**
 * Session entries for a service's own transaction (`store.withTransaction`):
 * a check over the current path and the append it guards commit together,
 * so two concurrent appends cannot both pass a limit. The session row is
 * locked first (an UPDATE that changes nothing: a row lock on PostgreSQL, the
 * write lock on SQLite), so the check also holds against another worker.
 */
import { requireSession } from './catalog.js';
import { toEntry } from './rows.js';
import type { Sql } from './sql.js';
import { appendEntries, pathRows } from './tree.js';
import type { Entry, EntryInput, SessionRecord } from './types.js';

/** Locks the session for this transaction and reads its path (root → leaf). */
export async function lockSessionPath(sql: Sql, sessionId: string): Promise<{ session: SessionRecord; path: Entry[] }> {
  await sql.run('UPDATE claw_sessions SET updated_at = updated_at WHERE id = :id', { id: String(sessionId) });
  const session = await requireSession(sql, sessionId);
  return { session, path: (await pathRows(sql, session.id, session.leafEntryId)).map(toEntry) };
}

/** Appends under the leaf of a session read in the same transaction. */
export function appendInTransaction(sql: Sql, session: SessionRecord, entries: readonly EntryInput[], now: number): Promise<Entry[]> {
  return appendEntries(sql, session, entries, now);
}
