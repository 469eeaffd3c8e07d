/**
 * New private files (exports, artifacts): created 0600, never over an
 * existing path or through a symlink, fsynced, and removed again when the
 * write fails, so a file is whole or absent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, XdogError } from './errors.js';

/** Writes `content` to a new 0600 file; refuses an existing path or a missing directory, and leaves nothing behind on failure. */
export function writePrivateFile(target: string, content: string | Uint8Array): string {
  const file = path.resolve(target);
  const dir = path.dirname(file);
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new XdogError(ErrorCodes.NOT_FOUND, `the directory ${dir} does not exist`, { hint: 'create it first, or write somewhere else' });
  }
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new XdogError(ErrorCodes.CONFLICT, `${file} already exists; it was not overwritten`, { hint: 'choose another file name' });
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `cannot create ${file}: ${(error as Error).message}`);
  }
  try {
    fs.writeFileSync(fd, content);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  return file;
}
