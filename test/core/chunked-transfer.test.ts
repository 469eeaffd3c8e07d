/**
 * Chunked reads (core/rpc/chunked-snapshots.ts and chunked-read.ts): the
 * server serves one immutable snapshot in order and expires it; the reader
 * refuses anything that does not add up (offsets, size, snapshot, SHA-256),
 * stops at a chunk's deadline or a cancel, spools large reads to a private
 * file and leaves nothing behind when it fails.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../core/limits.js';
import { ChunkedSnapshots, readChunks, readSnapshot, type FetchChunk, type SnapshotChunk } from '../../core/rpc/index.js';

const CHUNK = LIMITS.clawSnapshotChunkBytes;

function bytesOf(length: number, seed = 1): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed) & 0xff;
  return out;
}

const options = { what: 'the test bytes', maxBytes: 64 * 1024 * 1024, overHint: 'read less' };

/** A server over `source()` (read afresh for each new snapshot) and a fetch of it. */
function serve(source: () => Buffer, extra: Partial<ConstructorParameters<typeof ChunkedSnapshots>[0]> = {}) {
  const server = new ChunkedSnapshots({ what: 'the test bytes', maxBytes: 64 * 1024 * 1024, hint: 'read less', ...extra });
  let takes = 0;
  const fetch: FetchChunk<SnapshotChunk> = ({ offset, snapshot }) =>
    server.read('scope', snapshot, offset, async (id) => {
      if (id !== undefined) return undefined;
      takes++;
      return { bytes: source() };
    });
  return { server, fetch, takes: () => takes };
}

/** Temp files the reader left in the temp directory. */
function spools(): string[] {
  return fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('xdog-read-'));
}

describe('chunked snapshots and their reader', () => {
  it('reads a multi-chunk snapshot whole and verified, even while the source changes under it', async () => {
    let current = bytesOf(3 * CHUNK + 17);
    const original = current;
    const { fetch, takes } = serve(() => current);
    const calls: number[] = [];
    const result = await readSnapshot<SnapshotChunk, Buffer>(
      async (request) => {
        calls.push(request.offset);
        const chunk = await fetch(request);
        current = bytesOf(5 * CHUNK, 9); // the source grows meanwhile: later chunks still read the snapshot
        return chunk;
      },
      options,
      (body) => body.bytes(),
    );
    expect(result.equals(original)).toBe(true);
    expect(calls).toEqual([0, CHUNK, 2 * CHUNK, 3 * CHUNK]);
    expect(takes()).toBe(1);
  });

  it('refuses a tampered chunk on the final SHA-256 and hands nothing on', async () => {
    const { fetch } = serve(() => bytesOf(2 * CHUNK + 5));
    let used = false;
    const tampered: FetchChunk<SnapshotChunk> = async (request) => {
      const chunk = await fetch(request);
      if (chunk.offset !== CHUNK) return chunk;
      const bytes = Buffer.from(chunk.data, 'base64');
      bytes[10] ^= 0xff;
      return { ...chunk, data: bytes.toString('base64') };
    };
    await expect(readSnapshot(tampered, options, () => (used = true))).rejects.toMatchObject({ code: 'INVALID_STATE', message: expect.stringMatching(/SHA-256/) });
    expect(used).toBe(false);
  });

  it('refuses chunks that skip, overlap, change the snapshot or the declared size, or exceed the client limit', async () => {
    const { fetch } = serve(() => bytesOf(3 * CHUNK));
    const bent = (change: (chunk: SnapshotChunk) => SnapshotChunk): FetchChunk<SnapshotChunk> => async (request) => change(await fetch(request));
    const sink = () => {};
    await expect(readChunks(bent((c) => (c.offset === CHUNK ? { ...c, offset: CHUNK + 1 } : c)), sink, options)).rejects.toThrow(/starts at byte/);
    await expect(readChunks(bent((c) => (c.offset === 0 ? { ...c, nextOffset: c.nextOffset + 1 } : c)), sink, options)).rejects.toThrow(/says the next one starts/);
    await expect(readChunks(bent((c) => (c.offset === CHUNK ? { ...c, snapshot: 'other' } : c)), sink, options)).rejects.toThrow(/snapshot or size differs/);
    await expect(readChunks(bent((c) => (c.offset === CHUNK ? { ...c, totalBytes: c.totalBytes + 1 } : c)), sink, options)).rejects.toThrow(/snapshot or size differs/);
    await expect(readChunks(bent((c) => ({ ...c, done: true, sha256: 'x' })), sink, options)).rejects.toThrow(/ends at/);
    await expect(readChunks(fetch, sink, { ...options, maxBytes: CHUNK })).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
  });

  it('refuses an offset past the end, and a snapshot that expired or is of another scope', async () => {
    let now = 1_000;
    const { server, fetch } = serve(() => bytesOf(2 * CHUNK), { now: () => now, idleMs: 60_000 });
    const first = await fetch({ offset: 0, snapshot: undefined, signal: new AbortController().signal, timeoutMs: 1000 });
    await expect(fetch({ offset: 2 * CHUNK + 1, snapshot: first.snapshot, signal: new AbortController().signal, timeoutMs: 1000 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/past the end/) });
    await expect(server.read('another scope', first.snapshot, CHUNK, async () => undefined)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // Read within the idle time it stays; idle longer it is gone, and the read must start again.
    now += 59_000;
    expect((await fetch({ offset: CHUNK, snapshot: first.snapshot, signal: new AbortController().signal, timeoutMs: 1000 })).done).toBe(true);
    now += 60_001;
    await expect(fetch({ offset: CHUNK, snapshot: first.snapshot, signal: new AbortController().signal, timeoutMs: 1000 })).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/expired/) });
    expect(server.size).toBe(0);
  });

  it('keeps a bounded number of snapshots, dropping the least recently used', async () => {
    const server = new ChunkedSnapshots({ what: 'x', maxBytes: 1024, hint: 'h', entries: 2 });
    const take = (text: string) => async () => ({ bytes: Buffer.from(text) });
    const a = await server.read('s', undefined, 0, take('a'));
    const b = await server.read('s', undefined, 0, take('b'));
    await server.read('s', a.snapshot, 0, async () => undefined); // a is used again: b is now the oldest
    await server.read('s', undefined, 0, take('c'));
    expect(server.size).toBe(2);
    await expect(server.read('s', b.snapshot, 0, async () => undefined)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(Buffer.from((await server.read('s', a.snapshot, 0, async () => undefined)).data, 'base64').toString()).toBe('a');
    await expect(server.read('s', undefined, 0, take('x'.repeat(1025)))).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED' });
  });

  it('stops at a cancel or a chunk deadline, and leaves no spool file behind', async () => {
    const big = bytesOf(LIMITS.clawChunkedMemoryBytes + 3 * CHUNK);
    const { fetch } = serve(() => big);
    const before = spools();
    const controller = new AbortController();
    const cancelling: FetchChunk<SnapshotChunk> = async (request) => {
      if (request.offset >= LIMITS.clawChunkedMemoryBytes + CHUNK) {
        controller.abort(Object.assign(new Error('cancelled by the test'), { code: 'ABORTED' }));
        return new Promise<never>(() => {}); // a fetch that ignores the signal still ends the read
      }
      return fetch(request);
    };
    await expect(readSnapshot(cancelling, { ...options, signal: controller.signal }, () => 'used')).rejects.toThrow(/cancelled by the test/);
    expect(spools()).toEqual(before);

    const stalling: FetchChunk<SnapshotChunk> = async (request) => (request.offset === 0 ? fetch(request) : new Promise<never>(() => {}));
    await expect(readSnapshot(stalling, { ...options, chunkDeadlineMs: 200 }, () => 'used')).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/no answer for the chunk at byte 65536/) });
  });

  it('spools a read over the memory bound to a private 0600 file that is gone after use', async () => {
    const big = bytesOf(LIMITS.clawChunkedMemoryBytes + CHUNK + 3);
    const { fetch } = serve(() => big);
    let spooled: string | undefined;
    const sha = await readSnapshot(fetch, options, (body) => {
      spooled = body.path;
      expect(body.path).toBeDefined();
      expect(fs.statSync(body.path!).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.dirname(body.path!)).mode & 0o777).toBe(0o700);
      expect(body.bytes().equals(big)).toBe(true);
      return body.sha256;
    });
    expect(sha).toBe(crypto.createHash('sha256').update(big).digest('hex'));
    expect(fs.existsSync(spooled!)).toBe(false);
  });
});
