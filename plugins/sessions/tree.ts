/**
 * The entry tree of a session: reading the path from the leaf to the root
 * (one recursive query, portable between SQLite and PostgreSQL), appending
 * under the leaf, moving the leaf, and copying a path into a fork. Callers
 * run these inside the store's transactions.
 */
import { ErrorCodes, LIMITS, XdogError, type ToolResultMessage } from '../../core/index.js';
import { checkpointAt, cutProblems } from './checkpoints.js';
import { requireSession } from './catalog.js';
import { missingKept, pathMessages } from './context.js';
import { checkEntryInput } from './entry-payloads.js';
import { foldForSearch, summaryFromText } from './names.js';
import { ENTRY_COLUMNS, MAX_ROW_ID, toEntry, type EntryRow } from './rows.js';
import type { Sql } from './sql.js';
import { DamagedStore, checkPath, entryPayload } from './stored.js';
import type { CompactionInput, CompactionWritten, Entry, EntryInput, EntryPayloads, SessionRecord, TreeEntry, TreePage } from './types.js';

/*
 * Walks parent links from one entry up to the root, carrying each row along
 * (joining back to the table afterwards, or sorting by depth in SQL, copies
 * every payload a second time). `e.id < w.id` holds for every real link (a
 * parent is always written first), so even a damaged row cannot make the walk
 * loop, and it is also why sorting by id gives root → leaf order. A walk
 * also stays inside its session: one that stops before a root met a parent id
 * that names no earlier entry of the session, and checkPath reports it.
 */
const PATH_SQL = `
  WITH RECURSIVE walk (id, session_id, parent_id, kind, payload, created_at) AS (
    SELECT id, session_id, parent_id, kind, payload, created_at FROM claw_entries WHERE id = :entry AND session_id = :session
    UNION ALL
    SELECT e.id, e.session_id, e.parent_id, e.kind, e.payload, e.created_at FROM claw_entries e JOIN walk w ON e.id = w.parent_id AND e.id < w.id AND e.session_id = w.session_id
  )
  SELECT id, session_id, parent_id, kind, payload, created_at FROM walk`;

/** Rows root → `entryId` (empty for a null entry); DamagedStore when the entry or a parent on the way is missing. */
export async function pathRows(sql: Sql, sessionId: string, entryId: number | null): Promise<EntryRow[]> {
  if (entryId === null) return [];
  const rows = await sql.all<EntryRow>(PATH_SQL, { entry: entryId, session: sessionId });
  rows.sort((a, b) => Number(a.id) - Number(b.id));
  checkPath(rows, sessionId, entryId);
  return rows;
}

/* The same walk without payloads: ids and kinds only, so no payload text is copied. */
const SKELETON_SQL = `
  WITH RECURSIVE walk (id, session_id, parent_id, kind) AS (
    SELECT id, session_id, parent_id, kind FROM claw_entries WHERE id = :entry AND session_id = :session
    UNION ALL
    SELECT e.id, e.session_id, e.parent_id, e.kind FROM claw_entries e JOIN walk w ON e.id = w.parent_id AND e.id < w.id AND e.session_id = w.session_id
  )
  SELECT id, parent_id, kind FROM walk`;

/**
 * The rows the model context needs, in path order: from the latest
 * compaction's first kept entry (or the root when there is none) to the leaf,
 * only messages, branch summaries and compactions. A long session that was
 * compacted costs the payloads of its tail, not of its whole history: the
 * path is walked without payloads first, then one range read fetches the
 * needed ones.
 */
export async function contextRows(sql: Sql, sessionId: string, leafId: number | null): Promise<{ rows: EntryRow[]; compactions: number }> {
  if (leafId === null) return { rows: [], compactions: 0 };
  const skeleton = (await sql.all<{ id: number; parent_id: number | null; kind: string }>(SKELETON_SQL, { entry: leafId, session: sessionId }))
    .map((row) => ({ id: Number(row.id), parent_id: row.parent_id, kind: row.kind }))
    .sort((a, b) => a.id - b.id);
  checkPath(skeleton, sessionId, leafId);
  let from = 0;
  const compaction = skeleton.findLastIndex((entry) => entry.kind === 'compaction');
  if (compaction >= 0) {
    const [row] = await sql.all<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM claw_entries WHERE id = :id`, { id: skeleton[compaction]!.id });
    const { firstKeptEntryId } = entryPayload(row as EntryRow & { kind: 'compaction' });
    const kept = firstKeptEntryId === null ? -1 : skeleton.findIndex((entry) => entry.id === firstKeptEntryId);
    if (firstKeptEntryId !== null && !(kept >= 0 && kept < compaction)) throw missingKept(row!, firstKeptEntryId);
    from = kept >= 0 ? kept : compaction;
  }
  // The first kept entry stays even when it is not a message: the context starts there.
  const wanted = new Set<number>([skeleton[from]!.id]);
  for (let i = from; i < skeleton.length; i++) {
    const { id, kind } = skeleton[i]!;
    if (kind === 'message' || kind === 'branch_summary' || kind === 'compaction') wanted.add(id);
  }
  const compactions = skeleton.filter((entry) => entry.kind === 'compaction').length;
  const rows = await sql.all<EntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM claw_entries WHERE session_id = :session AND id >= :low AND id <= :high ORDER BY id`,
    { session: sessionId, low: skeleton[from]!.id, high: leafId },
  );
  return { rows: rows.filter((row) => wanted.has(Number(row.id))), compactions };
}

/**
 * Writes a compaction (see SessionStore.compact): the recovery label and the
 * compaction entry, both children of the current leaf; the leaf moves to the
 * compaction entry (the path's message count stays: no message is removed).
 */
export async function writeCompaction(sql: Sql, session: SessionRecord, input: CompactionInput, now: number): Promise<CompactionWritten> {
  if (session.leafEntryId !== input.expectedLeafEntryId) {
    throw new XdogError(ErrorCodes.STALE, `session ${session.id} changed while it was being compacted (leaf ${session.leafEntryId ?? 'none'}, expected ${input.expectedLeafEntryId ?? 'none'})`, {
      hint: 'nothing was written; compact again',
    });
  }
  const leaf = session.leafEntryId;
  if (leaf === null) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `session ${session.id} has no entries to compact`);
  const onPath = pathMessages(await pathRows(sql, session.id, leaf)).some((entry) => entry.entryId === input.firstKeptEntryId);
  if (!onPath) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `entry ${input.firstKeptEntryId} is not a message on the current path of session ${session.id}`);
  const [counted] = await sql.all<{ n: number }>("SELECT COUNT(*) AS n FROM claw_entries WHERE session_id = :session AND kind = 'compaction'", { session: session.id });
  const number = Number(counted?.n ?? 0) + 1;
  const label = checkEntryInput({ kind: 'label', payload: { targetEntryId: leaf, label: `Before compaction #${number}` } }, 0);
  const recoveryId = await insertEntry(sql, session.id, leaf, label.kind, JSON.stringify(label.payload), now);
  const payload: EntryPayloads['compaction'] = {
    summary: input.summary,
    firstKeptEntryId: input.firstKeptEntryId,
    tokensBefore: input.tokensBefore,
    tokensAfter: input.tokensAfter,
    ...(input.details === undefined ? {} : { details: input.details }),
    recoveryEntryId: recoveryId,
  };
  const compaction = checkEntryInput({ kind: 'compaction', payload }, 1);
  const compactionId = await insertEntry(sql, session.id, leaf, compaction.kind, JSON.stringify(compaction.payload), now);
  await moveLeaf(sql, session.id, compactionId, session.messageCount, now);
  return {
    compaction: { ...compaction, id: compactionId, sessionId: session.id, parentId: leaf, createdAt: now } as Entry,
    recovery: { ...label, id: recoveryId, sessionId: session.id, parentId: leaf, createdAt: now } as Entry,
    number,
  };
}

export async function entryRow(sql: Sql, sessionId: string, entryId: number): Promise<EntryRow> {
  if (!Number.isInteger(entryId) || entryId < 1) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `entry id must be a positive integer, not ${entryId}`);
  const [row] = entryId > MAX_ROW_ID ? [] : await sql.all<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM claw_entries WHERE id = :id`, { id: entryId });
  if (!row) throw new XdogError(ErrorCodes.NOT_FOUND, `no entry ${entryId} in the store`);
  if (row.session_id !== sessionId) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `entry ${entryId} belongs to session ${row.session_id}, not ${sessionId}`);
  return row;
}

async function insertEntry(sql: Sql, sessionId: string, parentId: number | null, kind: string, payload: string, now: number): Promise<number> {
  const [row] = await sql.all<{ id: number }>(
    'INSERT INTO claw_entries (session_id, parent_id, kind, payload, created_at) VALUES (:session, :parent, :kind, :payload, :now) RETURNING id',
    { session: sessionId, parent: parentId, kind, payload, now },
  );
  return Number(row!.id);
}

/**
 * The first entry of an append under the session's leaf, inserted only if the leaf is an entry of
 * this session: the check and the insert are one statement (no row back: the store is damaged).
 */
async function insertUnderLeaf(sql: Sql, sessionId: string, leafId: number, kind: string, payload: string, now: number, leafUnread: boolean): Promise<number | undefined> {
  const [row] = await sql.all<{ id: number }>(
    'INSERT INTO claw_entries (session_id, parent_id, kind, payload, created_at) SELECT :session, id, :kind, :payload, :now FROM claw_entries WHERE id = :leaf AND session_id = :session RETURNING id',
    { session: sessionId, leaf: leafId, kind, payload, now },
  );
  // A remembered leaf that is not there says the memory is old, not that the store is damaged.
  if (!row && leafUnread) return undefined;
  if (!row) throw new DamagedStore(`session ${sessionId}: its leaf entry ${leafId} is missing`);
  return Number(row.id);
}

function firstUserText(entries: readonly EntryInput[]): string | undefined {
  for (const entry of entries) {
    if (entry.kind !== 'message' || entry.payload.message.role !== 'user') continue;
    const { content } = entry.payload.message;
    const text = typeof content === 'string' ? content : content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
    if (text.trim()) return text;
  }
  return undefined;
}

/** The session row as an append needs it: which session, and the leaf it extends. */
export type AppendTarget = Pick<SessionRecord, 'id' | 'leafEntryId'>;

/**
 * Appends entries in order under the leaf and moves the leaf to the last one. With `leafUnread`,
 * nothing locked or read the session row: its leaf is one the caller remembers, and the move is a
 * compare-and-swap on it. When the row's leaf is another (a navigation, another writer), the row is
 * then read and locked in the same transaction and the entries are written again under its real
 * leaf: nothing is rolled back, the append costs a few statements more. The summary is set from the first
 * user text only where the row has none, so the append needs nothing else of the row.
 */
export async function appendEntries(sql: Sql, session: AppendTarget, inputs: readonly EntryInput[], now: number, leafUnread = false): Promise<Entry[]> {
  if (!Array.isArray(inputs) || inputs.length === 0) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'append needs at least one entry');
  const checked = inputs.map(checkEntryInput);
  const entries: Entry[] = [];
  let parentId = session.leafEntryId;
  let messages = 0;
  for (const [index, input] of checked.entries()) {
    const payload = JSON.stringify(input.payload);
    let id: number | undefined;
    if (index === 0 && parentId !== null) {
      id = await insertUnderLeaf(sql, session.id, parentId, input.kind, payload, now, leafUnread);
      // The remembered leaf is no entry of this session: nothing was written yet, so append from the row itself.
      if (id === undefined) return appendEntries(sql, await requireSession(sql, session.id, true), inputs, now);
    } else {
      id = await insertEntry(sql, session.id, parentId, input.kind, payload, now);
    }
    entries.push({ ...input, id, sessionId: session.id, parentId, createdAt: now } as Entry);
    if (input.kind === 'message') messages++;
    parentId = id;
  }
  const text = firstUserText(checked);
  const summary = text === undefined ? null : summaryFromText(text);
  const move = (expected?: number | null) =>
    sql.run(
      `UPDATE claw_sessions SET leaf_entry_id = :leaf, message_count = message_count + :messages, updated_at = :now
         ${summary === null ? '' : ', summary = COALESCE(summary, :summary), summary_folded = CASE WHEN summary IS NULL THEN :folded ELSE summary_folded END'} WHERE id = :id${expected === undefined ? '' : expected === null ? ' AND leaf_entry_id IS NULL' : ' AND leaf_entry_id = :expected'}`,
      {
        leaf: parentId,
        messages,
        now,
        id: session.id,
        ...(summary === null ? {} : { summary, folded: foldForSearch(summary) }),
        ...(expected === undefined || expected === null ? {} : { expected }),
      },
    );
  if (!leafUnread) {
    await move();
    return entries;
  }
  if ((await move(session.leafEntryId)) === 1) return entries;
  // The leaf moved since it was remembered: lock the row (NOT_FOUND when the session is gone), take back
  // what this transaction inserted (newest first: children before parents) and append under the real leaf,
  // so every entry's parent is still an earlier entry.
  const current = await requireSession(sql, session.id, true);
  for (const entry of [...entries].reverse()) await sql.run('DELETE FROM claw_entries WHERE id = :id', { id: entry.id });
  return appendEntries(sql, current, inputs, now);
}

/** Moves the leaf (and the path's message count with it). */
export async function moveLeaf(sql: Sql, sessionId: string, leafId: number | null, messageCount: number, now: number): Promise<void> {
  await sql.run('UPDATE claw_sessions SET leaf_entry_id = :leaf, message_count = :count, updated_at = :now WHERE id = :id', {
    leaf: leafId,
    count: messageCount,
    now,
    id: sessionId,
  });
}

/** The leaf `goto index` moves to: checkpoint `index` of the current path (refused when invalid). */
export async function gotoTarget(sql: Sql, session: SessionRecord, index: number): Promise<{ entryId: number; messageCount: number }> {
  const messages = pathMessages(await pathRows(sql, session.id, session.leafEntryId));
  return { entryId: checkpointAt(messages, index).entryId, messageCount: index };
}

/** The leaf `branch entryId` moves to, refused when the path to it ends inside a tool batch. */
export async function branchTarget(sql: Sql, session: SessionRecord, entryId: number): Promise<{ entryId: number; messageCount: number }> {
  await entryRow(sql, session.id, entryId);
  const messages = pathMessages(await pathRows(sql, session.id, entryId));
  const problem = messages.length ? cutProblems(messages)[messages.length - 1] : undefined;
  if (problem) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `entry ${entryId} is inside a tool batch: ${problem}`, { hint: 'branch to an entry after the tool results' });
  }
  return { entryId, messageCount: messages.length };
}

/** Remaps the entry ids a payload refers to when a path is copied into a fork. */
function remapPayload(row: EntryRow, ids: Map<number, number>): string {
  const { kind, payload } = row;
  if (kind !== 'compaction' && kind !== 'label' && kind !== 'branch_summary') return payload;
  const value = entryPayload(row) as unknown as Record<string, unknown>;
  const field = kind === 'compaction' ? 'firstKeptEntryId' : kind === 'label' ? 'targetEntryId' : 'fromEntryId';
  const mapped = ids.get(value[field] as number);
  return mapped === undefined ? payload : JSON.stringify({ ...value, [field]: mapped } as EntryPayloads[keyof EntryPayloads]);
}

/**
 * Copies the source path up to checkpoint `index` (the first `index` messages
 * and the other entries between them) into `targetId`. Returns the source
 * entry forked at and the copy's leaf.
 */
export async function copyPathPrefix(sql: Sql, source: SessionRecord, index: number, targetId: string, now: number): Promise<{ forkEntryId: number; leafId: number }> {
  const rows = await pathRows(sql, source.id, source.leafEntryId);
  const cut = checkpointAt(pathMessages(rows), index).entryId;
  const ids = new Map<number, number>();
  let parentId: number | null = null;
  for (const row of rows) {
    const id: number = await insertEntry(sql, targetId, parentId, row.kind, remapPayload(row, ids), Number(row.created_at));
    ids.set(Number(row.id), id);
    parentId = id;
    if (Number(row.id) === cut) break;
  }
  await moveLeaf(sql, targetId, parentId, index, now);
  return { forkEntryId: cut, leafId: parentId! };
}

/** The interrupted-call results `closeInterruptedToolCalls` appends: one per unanswered call of the last assistant message on the path, in call order. */
export function interruptedResults(rows: readonly EntryRow[], now: number): EntryInput[] {
  const messages = pathMessages(rows);
  let last = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.message.role === 'assistant') {
      last = i;
      break;
    }
  }
  if (last < 0) return [];
  const assistant = messages[last]!.message;
  if (assistant.role !== 'assistant') return [];
  const answered = new Set(messages.slice(last + 1).flatMap(({ message }) => (message.role === 'toolResult' ? [message.toolCallId] : [])));
  return assistant.content
    .filter((part) => part.type === 'toolCall' && !answered.has(part.id))
    .map((part) => {
      const call = part as Extract<typeof part, { type: 'toolCall' }>;
      const message: ToolResultMessage = {
        role: 'toolResult',
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: 'text', text: `The tool call was interrupted before its result was recorded; its effects are unknown. Check the current state before retrying ${call.name}.` }],
        isError: true,
        timestamp: now,
      };
      return { kind: 'message', payload: { message } };
    });
}

/**
 * One page of a session's entries, flat, in id order (a parent always comes
 * before its children): each with its parent id and whether it is on the path
 * to the leaf. A page ends after `limit` entries or before its payloads pass
 * LIMITS.clawTreePageBytes (it always holds one entry); `nextCursor` is where
 * the next one starts. Flat, so no answer nests one level per entry however
 * long the session is.
 */
export async function treePage(sql: Sql, session: SessionRecord, cursor: number, limit: number): Promise<TreePage> {
  const onPath = new Set<number>();
  if (session.leafEntryId !== null) {
    for (const row of await sql.all<{ id: number }>(SKELETON_SQL, { entry: session.leafEntryId, session: session.id })) onPath.add(Number(row.id));
  }
  // Sizes first, so a page of huge entries never loads more than its budget: characters are a lower bound of the UTF-8 bytes.
  const sizes = await sql.all<{ id: number; chars: number | string }>(
    'SELECT id, LENGTH(payload) AS chars FROM claw_entries WHERE session_id = :session AND id > :cursor ORDER BY id LIMIT :limit',
    { session: session.id, cursor, limit: limit + 1 },
  );
  let chars = 0;
  let take = 0;
  while (take < Math.min(limit, sizes.length) && (take === 0 || chars + Number(sizes[take]!.chars) <= LIMITS.clawTreePageBytes)) chars += Number(sizes[take++]!.chars);
  const rows =
    take === 0
      ? []
      : await sql.all<EntryRow>(`SELECT ${ENTRY_COLUMNS} FROM claw_entries WHERE session_id = :session AND id > :cursor AND id <= :last ORDER BY id`, {
          session: session.id,
          cursor,
          last: Number(sizes[take - 1]!.id),
        });
  const entries: TreeEntry[] = [];
  let bytes = 0;
  for (const row of rows) {
    bytes += Buffer.byteLength(row.payload);
    if (entries.length > 0 && bytes > LIMITS.clawTreePageBytes) break;
    entries.push({ ...toEntry(row), onPath: onPath.has(Number(row.id)) });
  }
  const more = entries.length < sizes.length;
  return { sessionId: session.id, leafEntryId: session.leafEntryId, entries, nextCursor: more ? entries.at(-1)!.id : null };
}
