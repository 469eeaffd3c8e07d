/**
 * Reading back what the store holds: JSON columns and the ids rows point at.
 * A value that does not decode, or an id that names no row, is damage (a
 * failed disk, a hand edit, a bad restore): it is thrown as a DamagedStore
 * inside the store operation, which turns it into STORE_CORRUPT naming the
 * store's file (sql.ts), the session and the entry, instead of a TypeError
 * or a JSON SyntaxError that surfaces as INTERNAL or MODEL_FAILED.
 */
import { checkStoredPayload } from './entry-payloads.js';
import type { EntryRow } from './rows.js';
import type { EntryKind, EntryPayloads } from './types.js';

/** What is damaged, e.g. "session S: entry 12 (message): the payload is not JSON (...)". */
export class DamagedStore extends Error {
  constructor(readonly problem: string) {
    super(problem);
    this.name = 'DamagedStore';
  }
}

/** `text` parsed as JSON; DamagedStore naming `what` (a function, so the common path builds no string) when it is not JSON. */
export function storedJson<T = unknown>(text: string, what: () => string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new DamagedStore(`${what()} is not JSON (${(error as Error).message})`);
  }
}

function entryName(row: Pick<EntryRow, 'id' | 'session_id' | 'kind'>, sessionId = row.session_id): string {
  return `session ${sessionId}: entry ${Number(row.id)} (${row.kind})`;
}

/** An entry's payload, decoded and checked against its kind's schema (entry-payloads.ts). */
export function entryPayload<K extends EntryKind>(row: EntryRow & { kind: K }, sessionId?: string): EntryPayloads[K];
export function entryPayload(row: EntryRow, sessionId?: string): EntryPayloads[EntryKind];
export function entryPayload(row: EntryRow, sessionId?: string): EntryPayloads[EntryKind] {
  const payload = storedJson(row.payload, () => `${entryName(row, sessionId)}: the payload`);
  const problem = checkStoredPayload(row.kind, payload);
  if (problem) throw new DamagedStore(`${entryName(row, sessionId)}: the payload ${problem}`);
  return payload as EntryPayloads[EntryKind];
}

/**
 * Checks a path read by walking parent links from `fromId` (rows sorted root
 * first): the walk must have found `fromId` and ended at a root. A walk that
 * stopped early met a parent id that names no earlier entry of the session.
 */
export function checkPath(rows: readonly Pick<EntryRow, 'id' | 'parent_id'>[], sessionId: string, fromId: number, what = 'its leaf'): void {
  if (rows.length === 0) throw new DamagedStore(`session ${sessionId}: ${what} entry ${fromId} is missing`);
  const top = rows[0]!;
  if (top.parent_id !== null) {
    throw new DamagedStore(`session ${sessionId}: entry ${Number(top.id)} points at parent entry ${Number(top.parent_id)}, which is missing (or not an earlier entry of the session)`);
  }
}
