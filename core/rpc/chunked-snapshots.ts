/**
 * The server side of a chunked read (docs/protocol.md, "Chunked reads"):
 * bytes too big for one answer are taken once as an immutable snapshot, kept
 * in a small LRU cache under an id, and served in chunks of
 * LIMITS.clawSnapshotChunkBytes by offset; the last chunk carries the
 * SHA-256 of the whole. Later chunks name the snapshot id, so they read the
 * same bytes even if the source changes meanwhile.
 */
import crypto from 'node:crypto';
import { ErrorCodes, XdogError } from '../errors.js';
import { LIMITS } from '../limits.js';

/** One chunk of a chunked read, as it goes on the wire. */
export interface SnapshotChunk {
  /** The snapshot this chunk is of: later chunks pass it back. */
  snapshot: string;
  offset: number;
  /** Base64 of bytes [offset, nextOffset) (at most LIMITS.clawSnapshotChunkBytes). */
  data: string;
  nextOffset: number;
  totalBytes: number;
  done: boolean;
  /** SHA-256 (hex) of the whole snapshot, on the last chunk only. */
  sha256?: string;
}

/** What taking a snapshot gives: its bytes and, when the same bytes can be taken again under it, a stable id. */
export interface TakenSnapshot {
  bytes: Buffer;
  /** Without it the snapshot gets a random id, and a later chunk after it left the cache is NOT_FOUND. */
  id?: string;
}

export interface ChunkedSnapshotsOptions {
  /** Names the content in errors ("the transcript", "the child's source"). */
  what: string;
  /** The largest snapshot, in bytes; a larger one is refused (LIMIT_EXCEEDED) with `hint`. */
  maxBytes: number;
  hint: string;
  entries?: number;
  cacheBytes?: number;
  idleMs?: number;
  now?: () => number;
}

interface Held {
  bytes: Buffer;
  sha256: string;
  usedAt: number;
}

export class ChunkedSnapshots {
  readonly #options: Required<Omit<ChunkedSnapshotsOptions, 'now'>> & { now: () => number };
  /** By `scope\0id`, least recently used first. */
  readonly #held = new Map<string, Held>();
  #heldBytes = 0;

  constructor(options: ChunkedSnapshotsOptions) {
    this.#options = { entries: LIMITS.clawSnapshotsCached, cacheBytes: LIMITS.clawSnapshotCacheBytes, idleMs: LIMITS.clawSnapshotIdleMs, now: Date.now, ...options };
  }

  /**
   * The chunk at `offset` of snapshot `snapshot` in `scope` (a group, a
   * session: an id of one scope never reads another's). Without `snapshot`,
   * or when it left the cache, `take(snapshot)` takes it; `take` answers
   * undefined when it cannot take that snapshot again.
   */
  async read(scope: string, snapshot: string | undefined, offset: number, take: (snapshot: string | undefined) => Promise<TakenSnapshot | undefined>): Promise<SnapshotChunk> {
    this.#expire();
    let id = snapshot;
    let held = id === undefined ? undefined : this.#use(`${scope}\0${id}`);
    if (!held) {
      const taken = await take(snapshot);
      if (!taken) {
        throw new XdogError(ErrorCodes.NOT_FOUND, `${this.#options.what}: snapshot ${snapshot} has expired or is unknown`, { hint: 'start the read again at offset 0 (without a snapshot)' });
      }
      // The source changed under the read (say, a session's entries went away): its first chunks no longer match.
      if (snapshot !== undefined && taken.id !== snapshot) {
        throw new XdogError(ErrorCodes.STALE, `${this.#options.what}: snapshot ${snapshot} can no longer be taken again (its source changed since the read began)`, { hint: 'start the read again at offset 0 (without a snapshot)' });
      }
      if (taken.bytes.length > this.#options.maxBytes) {
        throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${this.#options.what} is ${taken.bytes.length} bytes, over the ${this.#options.maxBytes}-byte limit of one read`, { hint: this.#options.hint });
      }
      id = taken.id ?? crypto.randomUUID();
      held = this.#keep(`${scope}\0${id}`, taken.bytes);
    }
    const total = held.bytes.length;
    if (offset > total) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `offset ${offset} is past the end of ${this.#options.what} (${total} bytes)`, { hint: 'start at 0 and follow nextOffset' });
    }
    const end = Math.min(total, offset + LIMITS.clawSnapshotChunkBytes);
    const done = end === total;
    return { snapshot: id!, offset, data: held.bytes.subarray(offset, end).toString('base64'), nextOffset: end, totalBytes: total, done, ...(done ? { sha256: held.sha256 } : {}) };
  }

  /** Snapshots held now (tests, diagnostics). */
  get size(): number {
    return this.#held.size;
  }

  #use(key: string): Held | undefined {
    const held = this.#held.get(key);
    if (!held) return undefined;
    // Re-inserted: the Map's order is the LRU order.
    this.#held.delete(key);
    held.usedAt = this.#options.now();
    this.#held.set(key, held);
    return held;
  }

  #keep(key: string, bytes: Buffer): Held {
    const known = this.#use(key);
    if (known) return known;
    const held: Held = { bytes, sha256: crypto.createHash('sha256').update(bytes).digest('hex'), usedAt: this.#options.now() };
    this.#held.set(key, held);
    this.#heldBytes += bytes.length;
    // The newest always stays: the read that took it must be able to finish.
    for (const [old, value] of this.#held) {
      if (this.#held.size <= this.#options.entries && this.#heldBytes <= this.#options.cacheBytes) break;
      if (old === key) continue;
      this.#drop(old, value);
    }
    return held;
  }

  #expire(): void {
    const oldest = this.#options.now() - this.#options.idleMs;
    for (const [key, held] of this.#held) if (held.usedAt <= oldest) this.#drop(key, held);
  }

  #drop(key: string, held: Held): void {
    this.#held.delete(key);
    this.#heldBytes -= held.bytes.length;
  }
}
