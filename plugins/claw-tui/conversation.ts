/**
 * A session as the TUI shows and exports it: the messages on the path from
 * the root to the leaf, read from the gateway's JSONL transcript (verified
 * against its SHA-256, bounded in size), and their plain-text forms.
 */
import type { Message } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { readSnapshot } from '../../core/rpc/index.js';
import { transcriptChunks, transcriptDiffers, type ChunkCall } from '../claw-gateway/index.js';

/** One transcript entry (docs/protocol.md). */
export interface TranscriptEntry {
  id: number;
  parentId: number | null;
  kind: string;
  payload: any;
  createdAt: number;
}

/** A message on the active path, with its 1-based number (what /fork and /goto take). */
export interface PathMessage {
  index: number;
  entryId: number;
  message: Message;
  /** An input from the host itself (a schedule, a goal), not from a person: not drawn in the timeline. */
  system?: true;
}

/**
 * Reads a session's whole transcript: every chunk in order, checked, at most
 * LIMITS.tuiTranscriptBytes. `call` is the connection's `callService`, or the
 * TUI's `call` inside a command job (then Escape cancels the read).
 */
export async function readTranscriptEntries(call: ChunkCall, group: string | undefined, sessionId: string): Promise<TranscriptEntry[]> {
  const options = { what: 'the transcript', maxBytes: LIMITS.tuiTranscriptBytes, overHint: 'use xdog claw sessions export to get it as a file', differs: transcriptDiffers };
  return readSnapshot(transcriptChunks(call, group, sessionId), options, (body) => {
    const lines = body.bytes().toString('utf8').split('\n').filter(Boolean);
    return lines.slice(1).map((line) => JSON.parse(line) as TranscriptEntry);
  });
}

/** The messages from the root to `leafEntryId`, numbered as the gateway numbers checkpoints. */
export function pathMessages(entries: readonly TranscriptEntry[], leafEntryId: number | null): PathMessage[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const path: TranscriptEntry[] = [];
  for (let id = leafEntryId; id !== null; ) {
    const entry = byId.get(id);
    if (!entry) break;
    path.push(entry);
    id = entry.parentId;
  }
  path.reverse();
  return path
    .filter((entry) => entry.kind === 'message')
    .map((entry, i) => ({ index: i + 1, entryId: entry.id, message: entry.payload.message as Message, ...((entry.payload as { source?: { kind?: string } }).source?.kind === 'system' ? { system: true as const } : {}) }));
}

export { messageText, thinkingText, toolCallLine, toolCallsOf } from '../../core/conversation-text.js';
