/**
 * Images attached to the draft. The type comes from the file's first bytes
 * (PNG, JPEG, WebP), never from its name; sizes are checked before a byte is
 * read, and the read itself is bounded, so a growing or huge file cannot
 * blow up memory. Limits: 4 per draft, 10 MiB each, 40 MiB held in total.
 */
import fs from 'node:fs';
// The module alone: pi-tui's index loads the whole terminal UI, which `claw send --image` never needs.
import { getImageDimensions } from '@mariozechner/pi-tui/dist/terminal-image.js';
import path from 'node:path';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import type { ImageContent } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';

export type ImageType = 'image/png' | 'image/jpeg' | 'image/webp';

/** The image type of `head` (the file's first 12 bytes or more), or undefined. */
export function sniffImage(head: Uint8Array): ImageType | undefined {
  const starts = (bytes: number[], at = 0): boolean => bytes.every((byte, i) => head[at + i] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}

export interface Attachment {
  /** `a1`, `a2`, ... for `/attachments remove a2`. */
  id: string;
  path: string;
  bytes: number;
  /** Pixels, from the file's header (0 for images restored after a failed send). */
  width: number;
  height: number;
  image: ImageContent;
}

const MiB = 1024 * 1024;

export class Attachments {
  readonly #items: Attachment[] = [];
  #next = 1;

  /** @param retainedElsewhere bytes of images the client holds outside the draft (queued turns). */
  constructor(private readonly retainedElsewhere: () => number = () => 0) {}

  list(): readonly Attachment[] {
    return this.#items;
  }

  get bytes(): number {
    return this.#items.reduce((sum, item) => sum + item.bytes, 0);
  }

  add(file: string): Attachment {
    const resolved = path.resolve(file);
    if (this.#items.length >= LIMITS.tuiAttachmentsPerDraft) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `a draft holds at most ${LIMITS.tuiAttachmentsPerDraft} images; ${file} was not attached`, { hint: 'send this draft first, or /attachments remove ID' });
    }
    const fd = openRegular(resolved);
    try {
      const size = fs.fstatSync(fd).size;
      if (size > LIMITS.tuiAttachmentBytes) {
        throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${file} is ${(size / MiB).toFixed(1)} MiB, over the ${LIMITS.tuiAttachmentBytes / MiB} MiB limit of one image; it was not attached`, { hint: 'shrink or crop the image first' });
      }
      if (this.bytes + this.retainedElsewhere() + size > LIMITS.tuiAttachmentsRetainedBytes) {
        throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `attaching ${file} would hold more than ${LIMITS.tuiAttachmentsRetainedBytes / MiB} MiB of images; it was not attached`, { hint: 'send or drop queued turns with images first' });
      }
      // One byte more than the limit: a file that grew since fstat is caught, not cut.
      const buffer = Buffer.alloc(Math.min(size, LIMITS.tuiAttachmentBytes) + 1);
      let length = 0;
      for (let read = -1; read !== 0 && length < buffer.length; length += read) read = fs.readSync(fd, buffer, length, buffer.length - length, length);
      if (length > size || length > LIMITS.tuiAttachmentBytes) throw new XdogError(ErrorCodes.INVALID_STATE, `${file} changed while it was read; it was not attached`);
      const data = buffer.subarray(0, length);
      const mimeType = sniffImage(data);
      if (!mimeType) throw new XdogError(ErrorCodes.IMAGE_REJECTED, `${file} is not a PNG, JPEG or WebP image (by its content); it was not attached`);
      const base64 = data.toString('base64');
      // A small file can still decode to a huge bitmap: the header's size is checked before anything decodes it.
      const size2d = getImageDimensions(base64, mimeType);
      if (!size2d) throw new XdogError(ErrorCodes.IMAGE_REJECTED, `${file}: its ${mimeType} header has no readable width and height; it was not attached`);
      if (size2d.widthPx * size2d.heightPx > LIMITS.tuiAttachmentPixels) {
        throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${file} is ${size2d.widthPx}x${size2d.heightPx} pixels, over the ${LIMITS.tuiAttachmentPixels / 1e6}-megapixel limit; it was not attached`, { hint: 'scale it down first' });
      }
      const attachment: Attachment = { id: `a${this.#next++}`, path: resolved, bytes: length, width: size2d.widthPx, height: size2d.heightPx, image: { type: 'image', mimeType, data: base64 } as ImageContent };
      this.#items.push(attachment);
      return attachment;
    } finally {
      fs.closeSync(fd);
    }
  }

  remove(id: string): Attachment {
    const index = this.#items.findIndex((item) => item.id === id);
    if (index < 0) throw new XdogError(ErrorCodes.NOT_FOUND, `no attachment ${id}`, { hint: '/attachments lists them' });
    return this.#items.splice(index, 1)[0]!;
  }

  /** Takes the images out for sending (the draft is then empty of images). */
  take(): ImageContent[] {
    return this.#items.splice(0).map((item) => item.image);
  }

  /** Puts images back after a send failed (the draft is restored as it was). */
  restore(images: readonly ImageContent[]): void {
    for (const image of images) this.#items.push({ id: `a${this.#next++}`, path: '(restored)', bytes: Buffer.byteLength(image.data, 'base64'), width: 0, height: 0, image });
  }

  clear(): void {
    this.#items.splice(0);
  }
}

function openRegular(file: string): number {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    throw new XdogError(ErrorCodes.NOT_FOUND, `cannot open ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (!fs.fstatSync(fd).isFile()) {
    fs.closeSync(fd);
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${file} is not a regular file; it was not attached`);
  }
  return fd;
}
