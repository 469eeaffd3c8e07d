/**
 * The model context of a path: its messages root → leaf with the latest
 * compaction applied (its summary as a leading user message, then the kept
 * messages from `firstKeptEntryId` on) and branch summaries as user messages.
 * Works on raw rows and decodes (and checks) only the payloads it uses, so a
 * long session costs one decode per message that reaches the model.
 */
import { compactionSummaryMessage, type Message, type UserMessage } from '../../core/index.js';
import type { PathMessage } from './checkpoints.js';
import type { EntryRow } from './rows.js';
import { DamagedStore, entryPayload } from './stored.js';
import type { EntryPayloads } from './types.js';

// The summary message is the agent SDK's own, so an agent rebuilt from the store sees what the live one saw.
export { compactionSummaryMessage };

export function branchSummaryMessage(summary: string, timestamp: number): UserMessage {
  return { role: 'user', content: [{ type: 'text', text: `Summary of a branch this conversation came back from:\n\n${summary}` }], timestamp };
}

/** Messages and their entry ids (null for synthesized summary messages), from a root → leaf path. */
export function contextMessages(
  path: readonly EntryRow[],
  compactions = 0,
): { messages: Message[]; entryIds: (number | null)[]; compaction: { summary: string; details?: unknown; count: number } | null } {
  const messages: Message[] = [];
  const entryIds: (number | null)[] = [];
  let start = 0;
  let compaction = -1;
  let state: { summary: string; details?: unknown; count: number } | null = null;
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i]!.kind === 'compaction') {
      compaction = i;
      break;
    }
  }
  if (compaction >= 0) {
    const row = path[compaction]!;
    const payload = entryPayload(row) as EntryPayloads['compaction'];
    messages.push(compactionSummaryMessage(payload.summary, Number(row.created_at)));
    state = { summary: payload.summary, ...(payload.details === undefined ? {} : { details: payload.details }), count: Math.max(1, compactions) };
    entryIds.push(null);
    const kept = payload.firstKeptEntryId === null ? -1 : path.findIndex((entry) => Number(entry.id) === payload.firstKeptEntryId);
    if (payload.firstKeptEntryId !== null && !(kept >= 0 && kept < compaction)) throw missingKept(row, payload.firstKeptEntryId);
    start = kept >= 0 ? kept : compaction + 1;
  }
  for (let i = start; i < path.length; i++) {
    const row = path[i]!;
    if (row.kind === 'message') {
      messages.push((entryPayload(row) as EntryPayloads['message']).message);
      entryIds.push(Number(row.id));
    } else if (row.kind === 'branch_summary') {
      messages.push(branchSummaryMessage((entryPayload(row) as EntryPayloads['branch_summary']).summary, Number(row.created_at)));
      entryIds.push(null);
    }
  }
  return { messages, entryIds, compaction: state };
}

/** A compaction whose first kept entry is not an earlier entry of its path. */
export function missingKept(row: EntryRow, firstKeptEntryId: number): DamagedStore {
  return new DamagedStore(`session ${row.session_id}: entry ${Number(row.id)} (compaction) keeps from entry ${firstKeptEntryId}, which is not an earlier entry of its path`);
}

/** Every message entry of a path (compactions ignored): what checkpoints number. */
export function pathMessages(path: readonly EntryRow[]): PathMessage[] {
  const result: PathMessage[] = [];
  for (const row of path) {
    if (row.kind === 'message') result.push({ entryId: Number(row.id), message: (entryPayload(row) as EntryPayloads['message']).message });
  }
  return result;
}
