/**
 * The gateway's private files: the 0700 runtime directory that holds its
 * socket, and the 0600 token file a client must read to say `hello`. Both are
 * opened without following symlinks and checked for owner and mode on the
 * open descriptor, so nobody can swap them between the check and the use.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, XdogError } from '../errors.js';

const TOKEN_PATTERN = /^[0-9a-f]{64}$/;
const START_HINT = 'is the gateway running? start it with `xdog claw gateway start`';

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function uid(): number {
  return process.getuid?.() ?? 0;
}

const RUNTIME_HINT = 'or point XDG_RUNTIME_DIR at a private directory of yours';

/**
 * Opens `dir` without following a symlink and checks, on the descriptor, that
 * it is a directory owned by this user. `what` names it in errors. Returns the
 * open descriptor (the caller closes it), or undefined when `dir` is missing
 * and `missingOk`.
 */
function openOwnDir(dir: string, what: string, missingOk = false): number | undefined {
  let fd: number;
  try {
    fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' && missingOk) return undefined;
    const link = fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink();
    const problem = link ? 'is a symlink' : code === 'ENOTDIR' ? 'is not a directory' : `cannot be opened (${code})`;
    throw new XdogError(ErrorCodes.INVALID_STATE, `${what} ${dir} ${problem}`, {
      hint: `${link ? 'someone may have planted it to intercept the gateway; ' : ''}remove it (\`rm ${link ? '' : '-r '}${dir}\`) and start again, ${RUNTIME_HINT}`,
    });
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.uid !== uid()) {
      throw new XdogError(ErrorCodes.INVALID_STATE, `${what} ${dir} belongs to uid ${stat.uid}, not to you (uid ${uid()})`, {
        hint: `someone else may have created it to intercept the gateway; have it removed (its owner or root: \`rm -r ${dir}\`), ${RUNTIME_HINT}`,
      });
    }
    return fd;
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/**
 * Checks the per-user runtime root (`$XDG_RUNTIME_DIR/xdog`, else
 * `<tmpdir>/xdog-<uid>`, which anyone could have made first): a real
 * directory, ours, mode exactly 0700. Unlike the gateway's own folder inside
 * it, a looser root is refused, not tightened: while it was open, anyone could
 * have swapped what it holds. False when it is missing.
 */
function checkRuntimeRoot(root: string): boolean {
  const what = 'the runtime directory';
  const fd = openOwnDir(root, what, true);
  if (fd === undefined) return false;
  try {
    const mode = fs.fstatSync(fd).mode & 0o777;
    if (mode !== 0o700) {
      throw new XdogError(ErrorCodes.INVALID_STATE, `${what} ${root} has mode ${mode.toString(8).padStart(4, '0')}, not 0700`, {
        hint: `others could replace the gateway's folder in it: check that nothing in it is someone else's, then \`chmod 700 ${root}\` (or remove it), ${RUNTIME_HINT}`,
      });
    }
    return true;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * For the gateway: creates the runtime root (0700) when missing and refuses
 * one that is not private (checkRuntimeRoot), then makes the gateway's
 * folder `dir` inside it (ensurePrivateDir).
 */
export function ensureRuntimeDir(root: string, dir: string): void {
  fs.mkdirSync(path.dirname(root), { recursive: true, mode: 0o700 });
  try {
    fs.mkdirSync(root, { mode: 0o700 });
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error;
  }
  checkRuntimeRoot(root);
  ensurePrivateDir(dir);
}

/**
 * For clients: refuses a runtime root or gateway folder that is not private
 * (a symlink, someone else's, open to others) before anything in it is
 * read. Missing ones pass: reading the token then says no gateway runs.
 */
export function checkRuntimeDir(root: string, dir: string): void {
  if (!checkRuntimeRoot(root)) return;
  const what = "the gateway's private directory";
  const fd = openOwnDir(dir, what, true);
  if (fd === undefined) return;
  try {
    const mode = fs.fstatSync(fd).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new XdogError(ErrorCodes.INVALID_STATE, `${what} ${dir} has mode ${mode.toString(8).padStart(4, '0')}, open to others`, {
        hint: `stop the gateway, \`chmod 700 ${dir}\` and start it again (it makes the folder 0700)`,
      });
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Creates `dir` (and missing parents) as 0700 and checks it is a real
 * directory owned by this user. Our own directory with group/other bits is
 * tightened to 0700; a symlink, a non-directory or someone else's directory is
 * refused, never used.
 */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const fd = openOwnDir(dir, "the gateway's private directory")!;
  try {
    if ((fs.fstatSync(fd).mode & 0o077) !== 0) fs.fchmodSync(fd, 0o700);
  } finally {
    fs.closeSync(fd);
  }
}

/** Opens `file` without following symlinks and checks it is ours and 0600-or-stricter. */
function openPrivateFile(file: string): number {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) {
      throw new XdogError(ErrorCodes.INVALID_STATE, `the gateway token ${file} is not a regular file`, { hint: `remove ${file} and restart the gateway` });
    }
    if (stat.uid !== uid()) {
      throw new XdogError(ErrorCodes.INVALID_STATE, `the gateway token ${file} belongs to uid ${stat.uid}, not to you (uid ${uid()})`, {
        hint: `remove ${file} and restart the gateway`,
      });
    }
    if ((stat.mode & 0o077) !== 0) {
      throw new XdogError(ErrorCodes.INVALID_STATE, `the gateway token ${file} is readable by others (mode ${(stat.mode & 0o777).toString(8)})`, {
        hint: `remove ${file} and restart the gateway (a token others could read must not be reused)`,
      });
    }
    return fd;
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

function readTokenFd(fd: number, file: string): string {
  // A token is 64 hex characters and a newline; read one byte more to notice a longer file.
  const buffer = Buffer.alloc(66);
  const length = fs.readSync(fd, buffer, 0, buffer.length, 0);
  const token = buffer.subarray(0, length).toString('utf8').trimEnd();
  if (!TOKEN_PATTERN.test(token)) {
    throw new XdogError(ErrorCodes.INVALID_STATE, `the gateway token ${file} is not a 64-character hex token`, {
      hint: `stop the gateway, remove ${file} and start it again`,
    });
  }
  return token;
}

function readExisting(file: string): string {
  const fd = openPrivateFile(file);
  try {
    return readTokenFd(fd, file);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The token a client must present in `hello`, for clients: refused when the
 * file is missing, is not ours or is readable by others.
 */
export function readToken(file: string): string {
  try {
    return readExisting(file);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      throw new XdogError(ErrorCodes.UNAVAILABLE, `there is no gateway token at ${file}`, { hint: START_HINT });
    }
    if (error instanceof XdogError) throw error;
    throw new XdogError(ErrorCodes.INVALID_STATE, `cannot read the gateway token ${file}: ${errnoCode(error) ?? String(error)}`, {
      hint: `it must be a regular file (not a symlink) owned by you, mode 0600`,
    });
  }
}

/**
 * The gateway's token, for the gateway: the existing one when `file` holds a
 * valid private token, else a new random 32-byte hex token. The new file is
 * written to a temp file, fsynced and hard-linked into place, so it appears
 * complete or not at all, and a concurrent creator's token wins instead of
 * being overwritten.
 */
export function readOrCreateToken(file: string): string {
  try {
    return readExisting(file);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
  const dir = path.dirname(file);
  const token = crypto.randomBytes(32).toString('hex');
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(6).toString('hex')}.tmp`);
  const fd = fs.openSync(temp, 'wx', 0o600);
  try {
    try {
      fs.writeFileSync(fd, `${token}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.linkSync(temp, file);
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return readExisting(file);
    throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
  const dirFd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(dirFd);
  } finally {
    fs.closeSync(dirFd);
  }
  return token;
}
