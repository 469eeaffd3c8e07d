/**
 * A session's transcript as JSONL (a header line, then every entry of its
 * tree in id order), read in bounded chunks that end with a SHA-256 of the
 * whole. Entries are append-only, so the transcript up to one entry id never
 * changes: later chunks name the `untilEntryId` of the first and read the
 * same bytes even while the session grows (the header holds only fields that
 * never change).
 */
import { LIMITS } from '../../core/limits.js';
import { treePages, type Entry, type SessionStore } from '../sessions/tokens.js';
import type { TranscriptChunk } from './protocol.js';
import { ChunkedSnapshots } from './transport/index.js';

export const TRANSCRIPT_FORMAT = 'xdog.claw.transcript';
export const TRANSCRIPT_VERSION = 1;

/** Builds transcripts as snapshots (core/rpc/chunked-snapshots.ts) so a chunked read does not rebuild per chunk. */
export class TranscriptReader {
  readonly #store: SessionStore;
  // Snapshot ids are the end entry ids: one that left the cache is built again, byte for byte.
  readonly #snapshots = new ChunkedSnapshots({ what: 'the transcript', maxBytes: LIMITS.clawTranscriptBytes, hint: 'the session is too large to read at once; fork a shorter branch or compact it' });

  constructor(store: SessionStore) {
    this.#store = store;
  }

  async read(sessionId: string, offset: number, untilEntryId?: number): Promise<TranscriptChunk> {
    const chunk = await this.#snapshots.read(sessionId, untilEntryId === undefined ? undefined : String(untilEntryId), offset, async () => this.#build(sessionId, untilEntryId));
    return { sessionId, untilEntryId: Number(chunk.snapshot), ...chunk };
  }

  async #build(sessionId: string, untilEntryId: number | undefined): Promise<{ id: string; bytes: Buffer }> {
    const session = await this.#store.getSession(sessionId);
    const entries: Entry[] = [];
    for await (const page of treePages((next) => this.#store.tree(sessionId, { cursor: next?.cursor }))) for (const { onPath: _onPath, ...entry } of page.entries) entries.push(entry as Entry);
    const until = untilEntryId ?? entries.at(-1)?.id ?? 0;
    const lines = [JSON.stringify({ type: TRANSCRIPT_FORMAT, version: TRANSCRIPT_VERSION, session: { id: session.id, group: session.group, parentSessionId: session.parentSessionId, forkEntryId: session.forkEntryId, createdAt: session.createdAt }, untilEntryId: until })];
    for (const entry of entries) if (entry.id <= until) lines.push(JSON.stringify(entry));
    return { id: String(until), bytes: Buffer.from(`${lines.join('\n')}\n`) };
  }
}
