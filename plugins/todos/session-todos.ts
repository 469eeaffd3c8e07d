/**
 * Todo lists of claw sessions in the store: one row per session in
 * `claw_todos` (entities/migrations/1765500000000-claw-todos.ts), replaced
 * in one transaction, so after a crash a session has its old list or its
 * new one. The group's store is shared by every worker: whoever owns the
 * group next reads the same list.
 */
import { ErrorCodes, XdogError, type Clock } from '../../core/index.js';
import type { TurnWrites } from '../claw-gateway/tokens.js';
import type { SessionStore, Sql } from '../sessions/tokens.js';
import { decodeTodoItems, EMPTY_TODOS, type TodoItem, type TodoList } from './state.js';
import type { TodoStore } from './tools.js';

interface TodoRow {
  items: string;
  revision: number | string;
  updated_at: number | string;
}

async function readRow(sql: Sql, sessionId: string): Promise<TodoList> {
  const [row] = await sql.all<TodoRow>('SELECT items, revision, updated_at FROM claw_todos WHERE session_id = :id', { id: sessionId });
  if (!row) return structuredClone(EMPTY_TODOS);
  return { items: decodeTodoItems(row.items, sessionId), revision: Number(row.revision), updatedAt: Number(row.updated_at) };
}

/** The session's list (empty before its first write); STORE_CORRUPT when the row does not decode. */
export function loadSessionTodos(store: SessionStore, sessionId: string): Promise<TodoList> {
  return store.withRead((sql) => readRow(sql, sessionId));
}

const UPSERT =
  'INSERT INTO claw_todos (session_id, items, revision, updated_at) VALUES (:id, :items, 1, :now) ' +
  'ON CONFLICT (session_id) DO UPDATE SET items = excluded.items, revision = claw_todos.revision + 1, updated_at = excluded.updated_at';

/** Replaces the session's list (checked by the caller) and returns it as committed. */
export function saveSessionTodos(store: SessionStore, sessionId: string, items: readonly TodoItem[], now: number): Promise<TodoList> {
  return store.withTransaction(async (sql) => {
    await sql.run(UPSERT, { id: sessionId, items: JSON.stringify(items), now });
    return readRow(sql, sessionId);
  });
}

/** The active session of a group (NOT_FOUND before its first one). */
export async function activeSessionOfGroup(store: SessionStore, group: string): Promise<string> {
  const sessionId = (await store.getGroup(group)).activeSessionId;
  if (!sessionId) throw new XdogError(ErrorCodes.NOT_FOUND, `group ${group} has no active session yet`, { hint: 'send a prompt first' });
  return sessionId;
}

/** Where a tool call stages its write: it then commits with the call's result entry (one transaction with the turn). */
export interface TodoStaging {
  writes: TurnWrites;
  toolCallId: string;
}

/**
 * The todo list of one session in the store. With `staging` a write is not
 * committed here: it is staged to commit with the tool result (the list it
 * answers is the one that commits; a group's runs are serialized, so nobody
 * writes the row in between).
 */
export function sessionTodoStore(store: SessionStore, sessionId: string, clock: Clock, staging?: TodoStaging): TodoStore {
  return {
    read: () => loadSessionTodos(store, sessionId),
    write: async (items) => {
      const now = clock.now();
      if (!staging) return saveSessionTodos(store, sessionId, items, now);
      const current = await loadSessionTodos(store, sessionId);
      const encoded = JSON.stringify(items);
      staging.writes.stage(staging.toolCallId, async (sql) => void (await sql.run(UPSERT, { id: sessionId, items: encoded, now })));
      return { items: structuredClone([...items]), revision: current.revision + 1, updatedAt: now };
    },
  };
}
