/** Image types told by their first bytes, never by a file name or a server's word. */
import type { ImageMimeType } from './generator.js';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];

function startsWith(data: Uint8Array, bytes: number[], at = 0): boolean {
  return data.length >= at + bytes.length && bytes.every((byte, index) => data[at + index] === byte);
}

/** PNG, JPEG or WebP by magic bytes; undefined for anything else. */
export function sniffImage(data: Uint8Array): ImageMimeType | undefined {
  if (startsWith(data, PNG)) return 'image/png';
  if (startsWith(data, JPEG)) return 'image/jpeg';
  // RIFF....WEBP
  if (startsWith(data, [0x52, 0x49, 0x46, 0x46]) && startsWith(data, [0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}

export const EXTENSIONS: Readonly<Record<ImageMimeType, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };
