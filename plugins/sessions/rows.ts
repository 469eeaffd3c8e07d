/** Raw database rows of the session store and their conversion to the contract's records. */
import { entryPayload, storedJson } from './stored.js';
import type { Entry, EntryKind, GroupRecord, SessionRecord, SessionState } from './types.js';

/** Row ids (entries, memories, runs) are 32-bit integers on both stores: a larger id names no row (PostgreSQL refuses it outright). */
export const MAX_ROW_ID = 2 ** 31 - 1;

export interface GroupRow {
  name: string;
  active_session_id: string | null;
  revision: number | string;
}

export interface SessionRow {
  id: string;
  group_name: string;
  name: string | null;
  summary: string | null;
  parent_session_id: string | null;
  fork_entry_id: number | null;
  leaf_entry_id: number | null;
  archived: boolean | number;
  message_count: number | string;
  created_at: number | string;
  updated_at: number | string;
}

/** An entry row; `payload` is the JSON text, parsed only when needed. */
export interface EntryRow {
  id: number;
  session_id: string;
  parent_id: number | null;
  kind: EntryKind;
  payload: string;
  created_at: number | string;
}

export interface StateRow {
  model: string;
  thinking: string | null;
  skills: string;
  plan: string | null;
  extension_entries: string;
}

export const SESSION_COLUMNS =
  'id, group_name, name, summary, parent_session_id, fork_entry_id, leaf_entry_id, archived, message_count, created_at, updated_at';
export const ENTRY_COLUMNS = 'id, session_id, parent_id, kind, payload, created_at';

export function toGroup(row: GroupRow): GroupRecord {
  return { name: row.name, activeSessionId: row.active_session_id, revision: Number(row.revision) };
}

export function toSession(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    group: row.group_name,
    name: row.name,
    summary: row.summary,
    parentSessionId: row.parent_session_id,
    forkEntryId: row.fork_entry_id === null ? null : Number(row.fork_entry_id),
    leafEntryId: row.leaf_entry_id === null ? null : Number(row.leaf_entry_id),
    archived: Boolean(row.archived),
    messageCount: Number(row.message_count),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function toEntry(row: EntryRow): Entry {
  return {
    id: Number(row.id),
    sessionId: row.session_id,
    parentId: row.parent_id === null ? null : Number(row.parent_id),
    kind: row.kind,
    payload: entryPayload(row),
    createdAt: Number(row.created_at),
  } as Entry;
}

export function toState(row: StateRow, sessionId: string): SessionState {
  const field = (name: string) => () => `session ${sessionId}: the stored ${name}`;
  return {
    model: row.model,
    thinking: row.thinking,
    skills: storedJson<string[]>(row.skills, field('skills')),
    plan: row.plan === null ? null : storedJson(row.plan, field('plan')),
    extensionEntries: storedJson<Record<string, unknown>>(row.extension_entries, field('extension entries')),
  };
}
