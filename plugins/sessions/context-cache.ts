/**
 * The model contexts of recently used sessions, kept in memory so a second
 * `context()` of a long session costs two small reads (the session row and its
 * state), not a walk of its whole path. An entry is keyed by the leaf it was
 * built at: entries are never changed once written, so the same leaf means the
 * same path, whoever wrote it (another worker's append moves the leaf, and the
 * next read rebuilds). Appends through this store extend a cached context in
 * place of dropping it. Bounded by sessions and bytes (core/limits.ts).
 */
import { LIMITS, type Message } from '../../core/index.js';
import type { SessionContext } from './types.js';

type Built = Pick<SessionContext, 'messages' | 'entryIds' | 'compaction'>;

interface Cached extends Built {
  leafEntryId: number | null;
  bytes: number;
}

export class ContextCache {
  /** Insertion order is recency: a hit moves its session to the end. */
  readonly #entries = new Map<string, Cached>();
  #bytes = 0;

  constructor(
    private readonly maxSessions: number = LIMITS.clawContextCacheSessions,
    private readonly maxBytes: number = LIMITS.clawContextCacheBytes,
  ) {}

  /** The context of `sessionId` at `leafEntryId`, as fresh arrays (the messages are shared: read them, never change them). */
  get(sessionId: string, leafEntryId: number | null): Built | undefined {
    const cached = this.#entries.get(sessionId);
    if (!cached) return undefined;
    if (cached.leafEntryId !== leafEntryId) {
      this.drop(sessionId);
      return undefined;
    }
    this.#entries.delete(sessionId);
    this.#entries.set(sessionId, cached);
    return copyOf(cached);
  }

  /** Keeps what was built at `leafEntryId` from `bytes` of stored JSON; answers fresh arrays for the caller. */
  set(sessionId: string, leafEntryId: number | null, built: Built, bytes: number): Built {
    this.drop(sessionId);
    if (bytes <= this.maxBytes) {
      this.#entries.set(sessionId, { ...built, leafEntryId, bytes });
      this.#bytes += bytes;
      this.#evict();
    }
    return copyOf(built);
  }

  /**
   * Messages appended under the leaf `from`, ending at the leaf `to`: the
   * cached context (if it was at `from`) takes them; any other cached state of
   * the session is dropped. `messages` must be the stored form (decoded JSON).
   */
  extend(sessionId: string, from: number | null, to: number, appended: ReadonlyArray<{ id: number; message: Message; bytes: number }>): void {
    const cached = this.#entries.get(sessionId);
    if (!cached) return;
    if (cached.leafEntryId !== from) {
      this.drop(sessionId);
      return;
    }
    for (const entry of appended) {
      cached.messages.push(entry.message);
      cached.entryIds.push(entry.id);
      cached.bytes += entry.bytes;
      this.#bytes += entry.bytes;
    }
    cached.leafEntryId = to;
    this.#evict();
  }

  drop(sessionId: string): void {
    const cached = this.#entries.get(sessionId);
    if (!cached) return;
    this.#entries.delete(sessionId);
    this.#bytes -= cached.bytes;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  #evict(): void {
    for (const [sessionId] of this.#entries) {
      if (this.#entries.size <= this.maxSessions && this.#bytes <= this.maxBytes) return;
      this.drop(sessionId);
    }
  }
}

function copyOf(built: Built): Built {
  return { messages: built.messages.slice(), entryIds: built.entryIds.slice(), compaction: built.compaction && { ...built.compaction } };
}
