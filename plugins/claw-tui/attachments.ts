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
    this.#checkCount(file);
    const fd = openRegular(resolved);
    try {
      const size = fs.fstatSync(fd).size;
      this.#checkBytes(file, size);
      // One byte more than the limit: a file that grew since fstat is caught, not cut.
      const buffer = Buffer.alloc(Math.min(size, LIMITS.tuiAttachmentBytes) + 1);
      let length = 0;
      for (let read = -1; read !== 0 && length < buffer.length; length += read) read = fs.readSync(fd, buffer, length, buffer.length - length, length);
      if (length > size || length > LIMITS.tuiAttachmentBytes) throw new XdogError(ErrorCodes.INVALID_STATE, `${file} changed while it was read; it was not attached`);
      return this.#admit(file, resolved, buffer.subarray(0, length));
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Attaches image bytes read elsewhere (the clipboard); `label` names them in notices and the preview. */
  addBytes(label: string, data: Buffer): Attachment {
    this.#checkCount(label);
    this.#checkBytes(label, data.length);
    return this.#admit(label, label, data);
  }

  #checkCount(what: string): void {
    if (this.#items.length >= LIMITS.tuiAttachmentsPerDraft) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `a draft holds at most ${LIMITS.tuiAttachmentsPerDraft} images; ${what} was not attached`, { hint: 'send this draft first, or /attachments remove ID' });
    }
  }

  #checkBytes(what: string, size: number): void {
    if (size > LIMITS.tuiAttachmentBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${what} is ${(size / MiB).toFixed(1)} MiB, over the ${LIMITS.tuiAttachmentBytes / MiB} MiB limit of one image; it was not attached`, { hint: 'shrink or crop the image first' });
    }
    if (this.bytes + this.retainedElsewhere() + size > LIMITS.tuiAttachmentsRetainedBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `attaching ${what} would hold more than ${LIMITS.tuiAttachmentsRetainedBytes / MiB} MiB of images; it was not attached`, { hint: 'send or drop queued turns with images first' });
    }
  }

  /** Checks the bytes are an image of a bounded size (by content and header, before anything decodes it), then attaches them. */
  #admit(what: string, where: string, data: Buffer): Attachment {
    const mimeType = sniffImage(data);
    if (!mimeType) throw new XdogError(ErrorCodes.IMAGE_REJECTED, `${what} is not a PNG, JPEG or WebP image (by its content); it was not attached`);
    const base64 = data.toString('base64');
    // A small file can still decode to a huge bitmap: the header's size is checked before anything decodes it.
    const size2d = getImageDimensions(base64, mimeType);
    if (!size2d) throw new XdogError(ErrorCodes.IMAGE_REJECTED, `${what}: its ${mimeType} header has no readable width and height; it was not attached`);
    if (size2d.widthPx * size2d.heightPx > LIMITS.tuiAttachmentPixels) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${what} is ${size2d.widthPx}x${size2d.heightPx} pixels, over the ${LIMITS.tuiAttachmentPixels / 1e6}-megapixel limit; it was not attached`, { hint: 'scale it down first' });
    }
    const attachment: Attachment = { id: `a${this.#next++}`, path: where, bytes: data.length, width: size2d.widthPx, height: size2d.heightPx, image: { type: 'image', mimeType, data: base64 } as ImageContent };
    this.#items.push(attachment);
    return attachment;
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

/** The notice of an image just attached. */
export function attachedNotice(item: Attachment): string {
  return `attached ${item.id}: ${path.basename(item.path)} (${item.image.mimeType}, ${item.width}x${item.height}, ${item.bytes} bytes)`;
}

/** The line above the editor: what goes with the next message (`a1 big.png PNG 16x16 8.0 MiB · a2 …`); empty without images. */
export function attachmentPreview(items: readonly Attachment[]): string {
  if (!items.length) return '';
  const size = (bytes: number): string => (bytes >= MiB ? `${(bytes / MiB).toFixed(1)} MiB` : `${Math.max(1, Math.round(bytes / 1024))} KiB`);
  const one = (item: Attachment): string => `${item.id} ${path.basename(item.path)} ${item.image.mimeType.slice(6).toUpperCase()}${item.width ? ` ${item.width}x${item.height}` : ''} ${size(item.bytes)}`;
  return `attached ${items.map(one).join(' · ')} · /attachments remove ID drops one`;
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
