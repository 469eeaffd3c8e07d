/**
 * The client side of `upload:1`: images bigger than one chunk go to the
 * gateway in chunks (with their SHA-256) and the input names them by upload
 * id; small ones, and every image when the gateway lacks `upload:1`, stay
 * inline. Used by the TUI and by `xdog claw send --image`.
 */
import crypto from 'node:crypto';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import type { ImageContent } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import type { GatewayConnection } from './client.js';

/** What an input's `images` carries: inline images or upload references. */
export type InputImage = ImageContent | { type: 'image'; uploadId: string };

/** True when the gateway said `upload:1` in its hello. */
export function offersUploads(connection: Pick<GatewayConnection, 'hello'>): boolean {
  return connection.hello.methods.includes('upload.begin');
}

/** Sends each image over `LIMITS.clawUploadChunkBytes` as an upload; returns what the input's `images` should be. */
export async function prepareImages(connection: GatewayConnection, images: readonly ImageContent[]): Promise<InputImage[]> {
  if (!images.length) return [];
  const uploads = offersUploads(connection);
  const out: InputImage[] = [];
  for (const image of images) {
    const bytes = Buffer.from(image.data, 'base64');
    if (bytes.length <= LIMITS.clawUploadChunkBytes) {
      out.push(image);
      continue;
    }
    if (!uploads) {
      throw new XdogError(ErrorCodes.UNSUPPORTED, `an image of ${bytes.length} bytes needs chunked upload, which this gateway does not offer (upload:1); nothing was sent`, { hint: 'run a gateway of the same xdog version, or send a smaller image' });
    }
    out.push({ type: 'image', uploadId: await uploadImage(connection, image.mimeType, bytes) });
  }
  return out;
}

async function uploadImage(connection: GatewayConnection, mimeType: string, bytes: Buffer): Promise<string> {
  const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  const begun = (await connection.callService('upload.begin', { mimeType, bytes: bytes.length, sha256 })) as { uploadId: string; chunkBytes: number };
  const step = Math.max(1, Math.min(begun.chunkBytes, LIMITS.clawUploadChunkBytes));
  for (let offset = 0; offset < bytes.length; offset += step) {
    await connection.callService('upload.chunk', { uploadId: begun.uploadId, offset, data: bytes.subarray(offset, offset + step).toString('base64') });
  }
  return begun.uploadId;
}
