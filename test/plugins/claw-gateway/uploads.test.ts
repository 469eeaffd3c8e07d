/** Chunked uploads (`upload:1`): owned by one connection, bounded, in order, expiring, SHA-256 checked, used once. */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../../core/limits.js';
import { Uploads, type UploadOwner } from '../../../plugins/claw-gateway/uploads.js';

/** A connection: its close listeners run when `close()` is called. */
function connection(): UploadOwner & { close(): void } {
  const listeners: Array<() => void> = [];
  return {
    onClose: (listener) => {
      listeners.push(listener);
      return () => undefined;
    },
    close: () => listeners.forEach((listener) => listener()),
  };
}

const sha = (bytes: Buffer): string => crypto.createHash('sha256').update(bytes).digest('hex');
const image = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), crypto.randomBytes(3 * 1024 * 1024 + 17)]);

function send(uploads: Uploads, owner: UploadOwner, bytes: Buffer, declared = sha(bytes)): string {
  const { uploadId, chunkBytes } = uploads.begin(owner, { mimeType: 'image/png', bytes: bytes.length, sha256: declared });
  for (let offset = 0; offset < bytes.length; offset += chunkBytes) uploads.chunk(owner, uploadId, offset, bytes.subarray(offset, offset + chunkBytes).toString('base64'));
  return uploadId;
}

describe('Uploads', () => {
  it('assembles the chunks into the same bytes, once', () => {
    const uploads = new Uploads();
    const owner = connection();
    const id = send(uploads, owner, image);
    const [resolved] = uploads.resolve(owner, [{ type: 'image', uploadId: id }]);
    expect(sha(Buffer.from(resolved!.data, 'base64'))).toBe(sha(image));
    expect(resolved!.mimeType).toBe('image/png');
    expect(() => uploads.resolve(owner, [{ type: 'image', uploadId: id }])).toThrow(/no upload .* already used/);
  });

  it('belongs to its connection, which takes it along when it closes', () => {
    const uploads = new Uploads();
    const owner = connection();
    const other = connection();
    const id = send(uploads, owner, image);
    expect(() => uploads.resolve(other, [{ type: 'image', uploadId: id }])).toThrow(/no upload/);
    owner.close();
    expect(() => uploads.resolve(owner, [{ type: 'image', uploadId: id }])).toThrow(/no upload/);
  });

  it('refuses chunks out of order, too many bytes, an incomplete upload and a wrong SHA-256', () => {
    const uploads = new Uploads();
    const owner = connection();
    const { uploadId } = uploads.begin(owner, { mimeType: 'image/png', bytes: 10, sha256: sha(Buffer.alloc(10)) });
    expect(() => uploads.chunk(owner, uploadId, 5, Buffer.alloc(5).toString('base64'))).toThrow(/offset 5, but 0 bytes were received/);
    uploads.chunk(owner, uploadId, 0, Buffer.alloc(5).toString('base64'));
    expect(() => uploads.resolve(owner, [{ type: 'image', uploadId }])).toThrow(/incomplete: 5 of 10 bytes/);
    expect(() => uploads.chunk(owner, uploadId, 5, Buffer.alloc(6).toString('base64'))).toThrow(/more than its declared 10 bytes; it was dropped/);
    const wrong = send(uploads, owner, image, sha(Buffer.from('something else')));
    expect(() => uploads.resolve(owner, [{ type: 'image', uploadId: wrong }])).toThrow(/does not match its SHA-256/);
    expect(() => uploads.resolve(owner, [{ type: 'image', uploadId: wrong }])).toThrow(/no upload/);
  });

  it('checks every named upload before using any', () => {
    const uploads = new Uploads();
    const owner = connection();
    const good = send(uploads, owner, image);
    const { uploadId: partial } = uploads.begin(owner, { mimeType: 'image/png', bytes: 10, sha256: sha(Buffer.alloc(10)) });
    expect(() => uploads.resolve(owner, [{ type: 'image', uploadId: good }, { type: 'image', uploadId: partial }])).toThrow(/incomplete/);
    expect(uploads.resolve(owner, [{ type: 'image', uploadId: good }])).toHaveLength(1);
  });

  it('bounds size, count and bytes per connection, and expires unused uploads', () => {
    let now = 0;
    const uploads = new Uploads(() => now);
    const owner = connection();
    const declared = sha(Buffer.alloc(1));
    expect(() => uploads.begin(owner, { mimeType: 'image/png', bytes: LIMITS.clawUploadBytes + 1, sha256: declared })).toThrow(/over the 10485760-byte limit/);
    for (let i = 0; i < 4; i++) uploads.begin(owner, { mimeType: 'image/png', bytes: LIMITS.clawUploadBytes, sha256: declared });
    expect(() => uploads.begin(owner, { mimeType: 'image/png', bytes: 1, sha256: declared })).toThrow(/more than 41943040 bytes/);
    now += LIMITS.clawUploadTtlMs + 1;
    for (let i = 0; i < LIMITS.clawUploadsPerConnection; i++) uploads.begin(owner, { mimeType: 'image/png', bytes: 1, sha256: declared });
    expect(() => uploads.begin(owner, { mimeType: 'image/png', bytes: 1, sha256: declared })).toThrow(/already holds 8 uploads/);
  });
});
