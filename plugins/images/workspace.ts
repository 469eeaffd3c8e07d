/**
 * Where generate_image may read references and write images: inside the
 * workspace only, symbolic links resolved before the check, new files only.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ErrorCodes, XdogError } from '../../core/index.js';

/** The real path of `given` (relative to the workspace), refused when it lies outside it. */
export async function confinedPath(workspace: string, given: string, what: string): Promise<string> {
  const root = await fs.realpath(workspace);
  const absolute = path.resolve(root, given);
  let real: string;
  try {
    real = await fs.realpath(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new XdogError(ErrorCodes.NOT_FOUND, `${what} ${given} does not exist`);
    throw error;
  }
  if (!isInside(root, real)) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${what} ${given} is outside the workspace ${root}`, { hint: 'use a path inside the workspace' });
  }
  return real;
}

/**
 * Checks, before any request, that the output directory is inside the
 * workspace (its deepest existing part resolved, so a link cannot lead out);
 * nothing is created yet, so a failed generation leaves the disk as it was.
 */
export async function plannedOutputDirectory(workspace: string, given: string): Promise<string> {
  const root = await fs.realpath(workspace);
  const absolute = path.resolve(root, given);
  let existing = absolute;
  while (!(await exists(existing))) existing = path.dirname(existing);
  const real = path.join(await fs.realpath(existing), path.relative(existing, absolute));
  if (!isInside(root, real)) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `output directory ${given} is outside the workspace ${root}`, { hint: 'use a directory inside the workspace' });
  }
  return real;
}

/** Creates the planned directory and checks it again (it may have been swapped for a link meanwhile). */
export async function createOutputDirectory(workspace: string, planned: string): Promise<string> {
  await fs.mkdir(planned, { recursive: true, mode: 0o700 });
  return confinedPath(workspace, planned, 'output directory');
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.stat(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes one image under a new unique name; `wx` makes an existing file an
 * error instead of overwriting it, and the mode keeps it private.
 */
export async function saveNewImage(directory: string, extension: string, data: Buffer, now: Date): Promise<string> {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  const file = path.join(directory, `image-${stamp}-${randomBytes(4).toString('hex')}.${extension}`);
  await fs.writeFile(file, data, { flag: 'wx', mode: 0o600 });
  return file;
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
