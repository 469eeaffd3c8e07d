/**
 * Chunked image uploads (`upload:1`): an image too big for one frame (a
 * 10 MiB image is ~13.4 MiB of base64; a frame is 8 MiB) is sent with
 * `upload.begin` (its type, size and SHA-256), then `upload.chunk`s in order,
 * and then named in a prompt, steer or follow-up as `{type: "image", uploadId}`.
 *
 * Uploads belong to the connection that began them (another connection cannot
 * read or use them, and they are dropped when it closes), are bounded in
 * count and bytes per connection, expire when left unused, and are used at
 * most once: an input that names an incomplete upload, or one whose bytes do
 * not match the declared SHA-256, is refused and nothing runs.
 */
import crypto from 'node:crypto';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import type { ImageContent } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';

/** The minimal view of a connection: uploads end with it. */
export interface UploadOwner {
  onClose(listener: () => void): () => void;
}

export interface UploadBegin {
  mimeType: 'image/png' | 'image/jpeg' | 'image/webp';
  bytes: number;
  sha256: string;
}

export interface UploadReceipt {
  uploadId: string;
  chunkBytes: number;
  expiresAt: number;
}

interface Upload {
  id: string;
  mimeType: string;
  bytes: number;
  sha256: string;
  parts: Buffer[];
  received: number;
  hash: crypto.Hash;
  expiresAt: number;
}

/** An input's image: inline, or a finished upload of the same connection. */
export type ImageOrUpload = ImageContent | { type: 'image'; uploadId: string };

export class Uploads {
  readonly #byOwner = new WeakMap<UploadOwner, Map<string, Upload>>();

  constructor(private readonly now: () => number = Date.now) {}

  begin(owner: UploadOwner, request: UploadBegin): UploadReceipt {
    const held = this.#held(owner);
    if (request.bytes > LIMITS.clawUploadBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `an upload of ${request.bytes} bytes is over the ${LIMITS.clawUploadBytes}-byte limit of one image`, { hint: 'shrink or crop the image first' });
    }
    if (held.size >= LIMITS.clawUploadsPerConnection) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `this connection already holds ${LIMITS.clawUploadsPerConnection} uploads`, { hint: 'send an input that uses them, or wait for them to expire' });
    }
    const total = [...held.values()].reduce((sum, upload) => sum + upload.bytes, 0);
    if (total + request.bytes > LIMITS.clawUploadConnectionBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `this upload would make the connection hold more than ${LIMITS.clawUploadConnectionBytes} bytes of uploads`, { hint: 'send an input that uses the uploads first' });
    }
    const upload: Upload = { id: `u-${crypto.randomUUID()}`, mimeType: request.mimeType, bytes: request.bytes, sha256: request.sha256.toLowerCase(), parts: [], received: 0, hash: crypto.createHash('sha256'), expiresAt: this.now() + LIMITS.clawUploadTtlMs };
    held.set(upload.id, upload);
    return { uploadId: upload.id, chunkBytes: LIMITS.clawUploadChunkBytes, expiresAt: upload.expiresAt };
  }

  /** Appends one chunk at `offset` (chunks come in order; a repeated or skipped offset is refused). */
  chunk(owner: UploadOwner, uploadId: string, offset: number, data: string): { received: number; complete: boolean } {
    const upload = this.#find(owner, uploadId);
    const bytes = Buffer.from(data, 'base64');
    if (bytes.length === 0) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'upload.chunk: an empty chunk', { hint: 'send the next bytes of the image as base64' });
    if (bytes.length > LIMITS.clawUploadChunkBytes) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `upload.chunk: ${bytes.length} bytes, over the ${LIMITS.clawUploadChunkBytes}-byte chunk limit`, { hint: 'send smaller chunks' });
    if (offset !== upload.received) {
      throw new XdogError(ErrorCodes.INVALID_STATE, `upload.chunk: offset ${offset}, but ${upload.received} bytes were received; chunks go in order`, { hint: `send the chunk at offset ${upload.received}` });
    }
    if (upload.received + bytes.length > upload.bytes) {
      this.#drop(owner, upload.id);
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `upload ${upload.id} got more than its declared ${upload.bytes} bytes; it was dropped`, { hint: 'begin a new upload with the right size' });
    }
    upload.parts.push(bytes);
    upload.hash.update(bytes);
    upload.received += bytes.length;
    upload.expiresAt = this.now() + LIMITS.clawUploadTtlMs;
    return { received: upload.received, complete: upload.received === upload.bytes };
  }

  /** Turns an input's images into inline images, taking (using up) the uploads they name; checks all before taking any. */
  resolve(owner: UploadOwner, images: readonly ImageOrUpload[]): ImageContent[] {
    const ready = images.map((image) => {
      if (!('uploadId' in image)) return undefined;
      const upload = this.#find(owner, image.uploadId);
      if (upload.received !== upload.bytes) {
        throw new XdogError(ErrorCodes.INVALID_STATE, `upload ${upload.id} is incomplete: ${upload.received} of ${upload.bytes} bytes; nothing was sent`, { hint: 'send its remaining chunks first' });
      }
      return upload;
    });
    for (const upload of ready) {
      if (!upload) continue;
      const digest = upload.hash.copy().digest('hex');
      if (digest !== upload.sha256) {
        this.#drop(owner, upload.id);
        throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `upload ${upload.id} does not match its SHA-256 (declared ${upload.sha256}, received ${digest}); it was dropped and nothing was sent`, { hint: 'upload the image again' });
      }
    }
    return images.map((image, index) => {
      const upload = ready[index];
      if (!upload) return image as ImageContent;
      this.#drop(owner, upload.id);
      return { type: 'image', mimeType: upload.mimeType, data: Buffer.concat(upload.parts).toString('base64') } as ImageContent;
    });
  }

  #held(owner: UploadOwner): Map<string, Upload> {
    let held = this.#byOwner.get(owner);
    if (!held) {
      const created = new Map<string, Upload>();
      held = created;
      this.#byOwner.set(owner, created);
      owner.onClose(() => created.clear());
    }
    const now = this.now();
    for (const [id, upload] of held) if (upload.expiresAt <= now) held.delete(id);
    return held;
  }

  #find(owner: UploadOwner, uploadId: string): Upload {
    const upload = this.#held(owner).get(uploadId);
    if (!upload) throw new XdogError(ErrorCodes.NOT_FOUND, `no upload ${uploadId} on this connection (unknown, expired, already used, or begun by another connection)`, { hint: 'begin it again with upload.begin' });
    return upload;
  }

  #drop(owner: UploadOwner, uploadId: string): void {
    this.#byOwner.get(owner)?.delete(uploadId);
  }
}
