/**
 * The sandbox's rules for xdog's own file tools, which run in the host
 * process: a path is judged by its real path (symlinks, `..` and
 * /proc/self/root resolved), against the same roots bwrap binds. Writes land
 * only beneath the workspace or a `writable` path in workspace-write, nowhere
 * in read-only; reads see what the sandbox sees (everything but the host's
 * /tmp and the hidden paths, unless under a root).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { hiddenPaths, isWithin } from './bwrap.js';
import type { SandboxPolicy } from './policy.js';

/** The real path of `target`: its own when it exists, else its nearest existing ancestor's plus the missing rest. */
export async function realTarget(target: string): Promise<string> {
  const absolute = path.resolve(target);
  const missing: string[] = [];
  for (let current = absolute; ; current = path.dirname(current)) {
    try {
      return path.join(await fs.realpath(current), ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A dangling symlink names a target that does not exist yet: follow it, it is where a write would land.
      if (code === 'ENOENT' && current === absolute) {
        const link = await fs.readlink(current).catch(() => undefined);
        if (link !== undefined) return realTarget(path.resolve(path.dirname(current), link));
      }
      if (path.dirname(current) === current) return absolute;
      missing.push(path.basename(current));
    }
  }
}

async function realRoots(policy: SandboxPolicy, workspace: string): Promise<string[]> {
  return Promise.all([workspace, ...policy.writable].map((root) => realTarget(root)));
}

export interface PathVerdict {
  /** The real path to use, when allowed. */
  real?: string;
  /** Why not, for the model. */
  refused?: string;
}

/** May a file tool write `target` under `policy`? */
export async function checkWrite(target: string, policy: SandboxPolicy, workspace: string, shown: string): Promise<PathVerdict> {
  if (policy.mode === 'off') return { real: target };
  if (policy.mode === 'read-only') return { refused: `sandbox (read-only): ${shown} cannot be written; this session may not change files` };
  const real = await realTarget(target);
  const roots = await realRoots(policy, workspace);
  if (!roots.some((root) => isWithin(real, root))) {
    const where = real === path.resolve(target) ? real : `${real}, where it really leads`;
    return { refused: `sandbox (workspace-write): ${shown} is outside the writable roots (${where}); only the workspace${policy.writable.length ? ' and the writable paths' : ''} may be written` };
  }
  return { real };
}

/** May a file tool read `target` under `policy`? */
export async function checkRead(target: string, policy: SandboxPolicy, workspace: string, shown: string): Promise<PathVerdict> {
  if (policy.mode === 'off') return { real: target };
  const real = await realTarget(target);
  const roots = await realRoots(policy, workspace);
  if (roots.some((root) => isWithin(real, root))) return { real };
  const invisible = [await realTarget(os.tmpdir()), '/tmp', ...hiddenPaths(roots).map((hidden) => hidden.path)];
  if (invisible.some((hidden) => isWithin(real, hidden))) return { refused: `sandbox: ${shown} is not visible inside the sandbox (${real} is private to the host)` };
  return { real };
}
