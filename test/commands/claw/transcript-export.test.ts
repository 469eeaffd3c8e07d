import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportTranscript, type ChunkReader } from '../../../commands/claw/_lib/transcript-export.js';
import type { TranscriptChunk } from '../../../plugins/claw-gateway/protocol.js';
import { tempDir } from '../../support/temp.js';

const sessionId = '0b6f3c1e-5d1a-4c59-9d59-0c7b1a2e4f10';

/** A reader serving `text` in chunks of `size` bytes, as the gateway would; `tamper` changes a chunk. */
function reader(text: string, size: number, tamper: (chunk: TranscriptChunk) => TranscriptChunk = (chunk) => chunk): ChunkReader & { calls: number } {
  const bytes = Buffer.from(text);
  const read = async ({ offset }: { offset: number }): Promise<TranscriptChunk> => {
    read.calls++;
    const next = Math.min(bytes.length, offset + size);
    const done = next === bytes.length;
    return tamper({
      sessionId,
      untilEntryId: 9,
      snapshot: '9',
      offset,
      data: bytes.subarray(offset, next).toString('base64'),
      nextOffset: next,
      totalBytes: bytes.length,
      done,
      ...(done ? { sha256: crypto.createHash('sha256').update(bytes).digest('hex') } : {}),
    });
  };
  read.calls = 0;
  return read;
}

const jsonl = Array.from({ length: 40 }, (_, index) => JSON.stringify({ id: index + 1, text: `entry ${index + 1} ✓` })).join('\n') + '\n';

describe('exportTranscript', () => {
  it('writes the whole transcript, verified, to a new 0600 file', async () => {
    const file = path.join(tempDir(), 'session.jsonl');
    const read = reader(jsonl, 100);
    const result = await exportTranscript(read, file, () => {});
    expect(fs.readFileSync(file, 'utf8')).toBe(jsonl);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(result).toMatchObject({ sessionId, bytes: Buffer.byteLength(jsonl), output: file });
    expect(read.calls).toBeGreaterThan(5);
  });

  it('streams to stdout without a file', async () => {
    const out: Buffer[] = [];
    await exportTranscript(reader(jsonl, 64), undefined, (bytes) => void out.push(bytes));
    expect(Buffer.concat(out).toString('utf8')).toBe(jsonl);
  });

  it('refuses an existing file and leaves it as it was, without reading', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'taken.jsonl');
    fs.writeFileSync(file, 'mine');
    const read = reader(jsonl, 100);
    await expect(exportTranscript(read, file, () => {})).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(fs.readFileSync(file, 'utf8')).toBe('mine');
    expect(read.calls).toBe(0);
    expect(fs.readdirSync(dir)).toEqual(['taken.jsonl']);
  });

  it('refuses a missing parent directory (it is not created)', async () => {
    const dir = tempDir();
    await expect(exportTranscript(reader(jsonl, 100), path.join(dir, 'missing', 'out.jsonl'), () => {})).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(fs.existsSync(path.join(dir, 'missing'))).toBe(false);
  });

  it('writes nothing when the final SHA-256 does not match', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'bad.jsonl');
    const read = reader(jsonl, 100, (chunk) => (chunk.done ? { ...chunk, sha256: '0'.repeat(64) } : chunk));
    await expect(exportTranscript(read, file, () => {})).rejects.toThrow(/SHA-256.*bad\.jsonl was not written/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('refuses chunks that skip or overlap bytes', async () => {
    const dir = tempDir();
    const skipping = reader(jsonl, 100, (chunk) => (chunk.offset === 200 ? { ...chunk, nextOffset: chunk.nextOffset + 1 } : chunk));
    await expect(exportTranscript(skipping, path.join(dir, 'a.jsonl'), () => {})).rejects.toThrow(/inconsistent/);
    const changing = reader(jsonl, 100, (chunk) => (chunk.offset === 300 ? { ...chunk, untilEntryId: 10 } : chunk));
    await expect(exportTranscript(changing, path.join(dir, 'b.jsonl'), () => {})).rejects.toThrow(/differs from the first chunk/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
