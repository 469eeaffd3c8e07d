/**
 * A session as the TUI shows and exports it: the messages on the path from
 * the root to the leaf, read from the gateway's JSONL transcript (verified
 * against its SHA-256, bounded in size), and their plain-text forms.
 */
import crypto from 'node:crypto';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import type { Message } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import type { GatewayConnection, TranscriptChunk } from '../claw-gateway/index.js';

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

/** Reads a session's whole transcript: every chunk in order, checked, at most LIMITS.tuiTranscriptBytes. */
export async function readTranscriptEntries(gateway: GatewayConnection, group: string | undefined, sessionId: string): Promise<TranscriptEntry[]> {
  const hash = crypto.createHash('sha256');
  const parts: Buffer[] = [];
  let offset = 0;
  let untilEntryId: number | undefined;
  for (;;) {
    const chunk = (await gateway.call('transcript.read', { group, sessionId, offset, untilEntryId })) as TranscriptChunk;
    const bytes = Buffer.from(chunk.data, 'base64');
    if (chunk.offset !== offset || chunk.nextOffset !== offset + bytes.length || (!chunk.done && bytes.length === 0)) {
      throw new XdogError(ErrorCodes.INVALID_STATE, `the transcript read failed: the chunk at byte ${offset} is inconsistent`, { hint: 'try again; the gateway log says more' });
    }
    if (chunk.totalBytes > LIMITS.tuiTranscriptBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the transcript is ${chunk.totalBytes} bytes, over the TUI's ${LIMITS.tuiTranscriptBytes}-byte limit`, { hint: 'use xdog claw sessions export to get it as a file' });
    }
    hash.update(bytes);
    parts.push(bytes);
    offset = chunk.nextOffset;
    untilEntryId = chunk.untilEntryId;
    if (chunk.done) {
      const sha256 = hash.digest('hex');
      if (sha256 !== chunk.sha256) throw new XdogError(ErrorCodes.INVALID_STATE, 'the transcript read failed its SHA-256 check', { hint: 'try again' });
      break;
    }
  }
  const lines = Buffer.concat(parts).toString('utf8').split('\n').filter(Boolean);
  return lines.slice(1).map((line) => JSON.parse(line) as TranscriptEntry);
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
