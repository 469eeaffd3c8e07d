/**
 * A session's transcript as JSONL (a header line, then every entry of its
 * tree in id order), read in bounded chunks that end with a SHA-256 of the
 * whole. Entries are append-only, so the transcript up to one entry id never
 * changes: later chunks name the `untilEntryId` of the first and read the
 * same bytes even while the session grows (the header holds only fields that
 * never change).
 */
import { createHash } from 'node:crypto';
import { ErrorCodes, XdogError } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { treePages, type Entry, type SessionStore } from '../sessions/tokens.js';
import type { TranscriptChunk } from './protocol.js';

export const TRANSCRIPT_FORMAT = 'xdog.claw.transcript';
export const TRANSCRIPT_VERSION = 1;

interface Built {
  untilEntryId: number;
  bytes: Buffer;
  sha256: string;
}

/** Builds and caches transcripts (a few, newest kept) so a chunked read does not rebuild per chunk. */
export class TranscriptReader {
  readonly #store: SessionStore;
  readonly #cache = new Map<string, Built>();
  static readonly cacheSize = 4;

  constructor(store: SessionStore) {
    this.#store = store;
  }

  async read(sessionId: string, offset: number, untilEntryId?: number): Promise<TranscriptChunk> {
    // Later chunks name the first one's entry id: served from the cache without touching the store.
    const cached = untilEntryId === undefined ? undefined : this.#cache.get(`${sessionId}:${untilEntryId}`);
    const built = cached ?? (await this.#build(sessionId, untilEntryId));
    const until = built.untilEntryId;
    if (offset > built.bytes.length) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `offset ${offset} is past the end of the transcript (${built.bytes.length} bytes)`, { hint: 'start at 0 and follow nextOffset' });
    }
    const end = Math.min(built.bytes.length, offset + LIMITS.clawTranscriptChunkBytes);
    const done = end === built.bytes.length;
    return {
      sessionId,
      untilEntryId: until,
      offset,
      data: built.bytes.subarray(offset, end).toString('base64'),
      nextOffset: end,
      totalBytes: built.bytes.length,
      done,
      ...(done ? { sha256: built.sha256 } : {}),
    };
  }

  async #build(sessionId: string, untilEntryId: number | undefined): Promise<Built> {
    const session = await this.#store.getSession(sessionId);
    const entries: Entry[] = [];
    for await (const page of treePages((next) => this.#store.tree(sessionId, { cursor: next?.cursor }))) for (const { onPath: _onPath, ...entry } of page.entries) entries.push(entry as Entry);
    const until = untilEntryId ?? entries.at(-1)?.id ?? 0;
    const key = `${sessionId}:${until}`;
    const known = this.#cache.get(key);
    if (known) return known;
    const lines = [JSON.stringify({ type: TRANSCRIPT_FORMAT, version: TRANSCRIPT_VERSION, session: { id: session.id, group: session.group, parentSessionId: session.parentSessionId, forkEntryId: session.forkEntryId, createdAt: session.createdAt }, untilEntryId: until })];
    for (const entry of entries) if (entry.id <= until) lines.push(JSON.stringify(entry));
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    const built: Built = { untilEntryId: until, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
    this.#cache.set(key, built);
    while (this.#cache.size > TranscriptReader.cacheSize) this.#cache.delete(this.#cache.keys().next().value!);
    return built;
  }
}
