/**
 * The one way xdog reads a file it was pointed at: only a regular file, and
 * at most a given number of bytes. A FIFO, a device (/dev/zero), a socket or
 * a link to one is refused before any byte is read, so no read blocks forever
 * or grows without end. The path is checked with stat before opening (opening
 * some devices acts) and the opened descriptor again with fstat (the path may
 * have been swapped in between); O_NONBLOCK keeps the open itself from waiting
 * for a FIFO's writer.
 */
import fs from 'node:fs';
import { ErrorCodes, XdogError, type ErrorCode } from './errors.js';

export interface BoundedReadOptions {
  /** Largest size accepted, in bytes; a larger file is refused, never cut. */
  maxBytes: number;
  /** What the file is, for messages: "config file", "skill file", ... */
  what: string;
  /** The path as shown in messages (default: the path given). */
  shown?: string;
  /** Error code for a refusal (default: INVALID_ARGUMENT for a non-regular file, LIMIT_EXCEEDED for size). */
  code?: ErrorCode;
  /** Hint for a file over the size limit. */
  sizeHint?: string;
}

const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY;

/**
 * Reads a regular file whole, refusing anything else and anything over
 * `maxBytes`. Failures to stat or open (ENOENT, EACCES, ...) are thrown as the
 * fs error, so callers keep their own wording for a missing file.
 */
export function readRegularFileSync(file: string, options: BoundedReadOptions): Buffer {
  checkStat(fs.statSync(file), file, options);
  const fd = fs.openSync(file, OPEN_FLAGS);
  try {
    const stat = fs.fstatSync(fd);
    checkStat(stat, file, options);
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(nextChunkSize(stat.size, length, options.maxBytes));
      const read = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      length += read;
      if (length > options.maxBytes) throw tooLarge(file, length, options);
      chunks.push(chunk.subarray(0, read));
    }
    return Buffer.concat(chunks, length);
  } finally {
    fs.closeSync(fd);
  }
}

/** The async form of readRegularFileSync: the same checks, without blocking the event loop. */
export async function readRegularFile(file: string, options: BoundedReadOptions): Promise<Buffer> {
  checkStat(await fs.promises.stat(file), file, options);
  const handle = await fs.promises.open(file, OPEN_FLAGS);
  try {
    const stat = await handle.stat();
    checkStat(stat, file, options);
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(nextChunkSize(stat.size, length, options.maxBytes));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > options.maxBytes) throw tooLarge(file, length, options);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, length);
  } finally {
    await handle.close();
  }
}

/** What kind of file a stat describes, in words; undefined for a regular file. */
export function nonRegularKind(stat: fs.Stats): string | undefined {
  if (stat.isFile()) return undefined;
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

function checkStat(stat: fs.Stats, file: string, options: BoundedReadOptions): void {
  const kind = nonRegularKind(stat);
  if (kind) {
    throw new XdogError(options.code ?? ErrorCodes.INVALID_ARGUMENT, `${options.what} ${options.shown ?? file} is ${kind}, not a regular file`, {
      hint: 'xdog reads only regular files; copy the data into a file first',
    });
  }
  if (stat.size > options.maxBytes) throw tooLarge(file, stat.size, options);
}

/** The rest of the file as stat saw it (64 KiB at a time once it grew), plus one byte so that growth past the limit shows. */
function nextChunkSize(statSize: number, read: number, maxBytes: number): number {
  return Math.min(Math.max(statSize - read, 64 * 1024), maxBytes - read) + 1;
}

function tooLarge(file: string, size: number, options: BoundedReadOptions): XdogError {
  return new XdogError(options.code ?? ErrorCodes.LIMIT_EXCEEDED, `${options.what} ${options.shown ?? file} is ${size} bytes, over the limit of ${options.maxBytes} bytes`, {
    hint: options.sizeHint,
    details: { size, limit: options.maxBytes },
  });
}
