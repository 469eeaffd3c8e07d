/**
 * The client side of a chunked read (chunked-snapshots.ts): asks for the
 * chunks in order and checks each against the previous ones (offset, size,
 * the snapshot and total the first one declared) and the whole against the
 * SHA-256 the last one carries. Each chunk has a deadline; a signal cancels
 * the read. `readSnapshot` keeps the bytes in memory up to
 * LIMITS.clawChunkedMemoryBytes and beyond that in a private (0600) temp
 * file, and hands them on only once verified: a failed read leaves nothing.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCodes, XdogError } from '../errors.js';
import { LIMITS } from '../limits.js';
import type { SnapshotChunk } from './chunked-snapshots.js';

/** Asks for one chunk: `snapshot` is undefined for the first and the first answer's id after it. */
export type FetchChunk<C extends SnapshotChunk> = (request: { offset: number; snapshot: string | undefined; signal: AbortSignal; timeoutMs: number }) => Promise<C>;

export interface ChunkedReadOptions<C extends SnapshotChunk> {
  /** Names the content in errors ("the transcript"). */
  what: string;
  /** The largest whole this client accepts, in bytes. */
  maxBytes: number;
  /** What to do when it is larger. */
  overHint: string;
  signal?: AbortSignal;
  /** Per chunk, in ms (default LIMITS.clawChunkDeadlineMs). */
  chunkDeadlineMs?: number;
  /** Fields of the first chunk every later one must repeat (a transcript's session, say); answers the problem or undefined. */
  differs?(first: C, chunk: C): string | undefined;
}

export interface ChunkedReadResult<C extends SnapshotChunk> {
  first: C;
  totalBytes: number;
  sha256: string;
}

/** Reads every chunk in order, passing each one's bytes to `sink` as it comes; rejects on any inconsistency. */
export async function readChunks<C extends SnapshotChunk>(fetch: FetchChunk<C>, sink: (bytes: Buffer) => Promise<void> | void, options: ChunkedReadOptions<C>): Promise<ChunkedReadResult<C>> {
  const hash = crypto.createHash('sha256');
  const deadline = options.chunkDeadlineMs ?? LIMITS.clawChunkDeadlineMs;
  let first: C | undefined;
  let offset = 0;
  for (;;) {
    const chunk = await fetchOne(fetch, offset, first?.snapshot, deadline, options);
    const bytes = Buffer.from(typeof chunk.data === 'string' ? chunk.data : '', 'base64');
    const problem = inconsistency(chunk, bytes, offset, first, options);
    if (problem) throw failed(options.what, `the chunk at byte ${offset} is inconsistent: ${problem}`);
    if (chunk.totalBytes > options.maxBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${options.what} is ${chunk.totalBytes} bytes, over this client's ${options.maxBytes}-byte limit`, { hint: options.overHint });
    }
    first ??= chunk;
    hash.update(bytes);
    await sink(bytes);
    offset = chunk.nextOffset;
    if (chunk.done) {
      const sha256 = hash.digest('hex');
      if (chunk.sha256 !== sha256) throw failed(options.what, `its SHA-256 is ${sha256} but the gateway sent ${chunk.sha256 ?? 'none'}`);
      return { first, totalBytes: offset, sha256 };
    }
  }
}

/** Verified bytes of a chunked read, in memory or in a private temp file (`path`), until the use ends. */
export interface SnapshotBody<C extends SnapshotChunk> extends ChunkedReadResult<C> {
  /** The temp file holding them, when they were over LIMITS.clawChunkedMemoryBytes. */
  path?: string;
  bytes(): Buffer;
}

/** Reads a whole snapshot and passes it to `use` once verified; the temp file (if any) is gone when this settles. */
export async function readSnapshot<C extends SnapshotChunk, T>(fetch: FetchChunk<C>, options: ChunkedReadOptions<C>, use: (body: SnapshotBody<C>) => Promise<T> | T): Promise<T> {
  const spool = new Spool();
  try {
    const result = await readChunks(fetch, (bytes) => spool.write(bytes), options);
    return await use({ ...result, ...(spool.path ? { path: spool.path } : {}), bytes: () => spool.bytes() });
  } finally {
    spool.dispose();
  }
}

async function fetchOne<C extends SnapshotChunk>(fetch: FetchChunk<C>, offset: number, snapshot: string | undefined, deadline: number, options: ChunkedReadOptions<C>): Promise<C> {
  options.signal?.throwIfAborted();
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(new XdogError(ErrorCodes.UNAVAILABLE, `${options.what}: no answer for the chunk at byte ${offset} within ${Math.round(deadline / 1000)}s; the read stopped`, { hint: 'try again; if it keeps failing, the gateway log says more' })), deadline);
  const signal = options.signal ? AbortSignal.any([options.signal, timer.signal]) : timer.signal;
  // The fetch may ignore the signal: the race still ends the wait.
  let stop: (() => void) | undefined;
  const stopped = new Promise<never>((_resolve, reject) => {
    stop = () => reject(signal.reason instanceof Error ? signal.reason : new XdogError(ErrorCodes.ABORTED, `${options.what}: the read was cancelled`));
    signal.addEventListener('abort', stop, { once: true });
  });
  try {
    return await Promise.race([fetch({ offset, snapshot, signal, timeoutMs: deadline }), stopped]);
  } finally {
    clearTimeout(timeout);
    signal.removeEventListener('abort', stop!);
    stopped.catch(() => undefined);
  }
}

function inconsistency<C extends SnapshotChunk>(chunk: C, bytes: Buffer, offset: number, first: C | undefined, options: ChunkedReadOptions<C>): string | undefined {
  if (chunk.offset !== offset) return `it starts at byte ${chunk.offset}, not ${offset}`;
  if (bytes.length > LIMITS.clawSnapshotChunkBytes) return `it holds ${bytes.length} bytes, over the ${LIMITS.clawSnapshotChunkBytes}-byte chunk limit`;
  if (chunk.nextOffset !== offset + bytes.length) return `it holds ${bytes.length} bytes but says the next one starts at ${chunk.nextOffset}`;
  if (first && (chunk.totalBytes !== first.totalBytes || chunk.snapshot !== first.snapshot)) return 'its snapshot or size differs from the first chunk';
  const other = first ? options.differs?.(first, chunk) : undefined;
  if (other) return other;
  if (!Number.isSafeInteger(chunk.totalBytes) || chunk.nextOffset > chunk.totalBytes || (chunk.done && chunk.nextOffset !== chunk.totalBytes)) return `it ends at ${chunk.nextOffset} of ${chunk.totalBytes} bytes`;
  if (!chunk.done && bytes.length === 0) return 'it is empty but not the last';
  return undefined;
}

function failed(what: string, problem: string): XdogError {
  return new XdogError(ErrorCodes.INVALID_STATE, `the read of ${what} failed: ${problem}`, { hint: 'try again; if it keeps failing, the gateway log says more' });
}

/** Bytes in memory up to a bound, then in a 0600 file in a fresh 0700 temp directory. */
class Spool {
  #parts: Buffer[] = [];
  #held = 0;
  #dir: string | undefined;
  #fd: number | undefined;

  get path(): string | undefined {
    return this.#dir === undefined ? undefined : path.join(this.#dir, 'body');
  }

  write(bytes: Buffer): void {
    if (this.#fd === undefined && this.#held + bytes.length <= LIMITS.clawChunkedMemoryBytes) {
      this.#parts.push(bytes);
      this.#held += bytes.length;
      return;
    }
    if (this.#fd === undefined) {
      this.#dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-read-'));
      this.#fd = fs.openSync(this.path!, 'wx', 0o600);
      for (const part of this.#parts) writeAll(this.#fd, part);
      this.#parts = [];
    }
    writeAll(this.#fd, bytes);
  }

  bytes(): Buffer {
    return this.#fd === undefined ? Buffer.concat(this.#parts) : fs.readFileSync(this.path!);
  }

  dispose(): void {
    this.#parts = [];
    if (this.#fd !== undefined) fs.closeSync(this.#fd);
    if (this.#dir !== undefined) fs.rmSync(this.#dir, { recursive: true, force: true });
    this.#fd = undefined;
    this.#dir = undefined;
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at);
}
