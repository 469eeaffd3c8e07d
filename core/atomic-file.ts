/**
 * Durable file publishing: content goes to a private temp file (0600) beside
 * the target, is fsynced, then published in one step and the directory is
 * fsynced. A failure at any point leaves the target exactly as it was and no
 * temp file behind.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, XdogError } from './errors.js';
import { syncDirectory } from './sync-directory.js';

export interface AtomicWriteOptions {
  /** Replace an existing target (rename); otherwise an existing target is refused, even one created meanwhile (link). */
  overwrite: boolean;
  /** Create a missing parent directory with mode 0700 (otherwise a missing parent is refused). */
  createParent?: boolean;
}

/** Writes `target` through `fill`, which writes the content to the open temp file. */
export async function writeFileAtomic(target: string, fill: (fd: number) => Promise<void> | void, options: AtomicWriteOptions): Promise<void> {
  const file = path.resolve(target);
  const dir = path.dirname(file);
  if (options.createParent) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  else if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new XdogError(ErrorCodes.NOT_FOUND, `the directory ${dir} does not exist`, { hint: 'create it first, or write somewhere else' });
  }
  if (!options.overwrite && fs.lstatSync(file, { throwIfNoEntry: false })) {
    throw new XdogError(ErrorCodes.CONFLICT, `${file} already exists; it was not overwritten`, { hint: 'choose another file name, or remove it first' });
  }
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(temp, 'wx', 0o600);
  try {
    try {
      await fill(fd);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (options.overwrite) fs.renameSync(temp, file);
    else publishExclusive(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fs.rmSync(temp, { force: true });
  syncDirectory(dir);
}

/** Publishes `temp` as `file` only if `file` does not exist at that instant (a hard link fails with EEXIST). */
function publishExclusive(temp: string, file: string): void {
  try {
    fs.linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new XdogError(ErrorCodes.CONFLICT, `${file} appeared while it was being written; it was not overwritten`, { hint: 'choose another file name' });
    }
    throw error;
  }
}

/** Writes a whole buffer to a file descriptor. */
export function writeAll(fd: number, data: Uint8Array): void {
  let written = 0;
  while (written < data.length) written += fs.writeSync(fd, data, written, data.length - written);
}
