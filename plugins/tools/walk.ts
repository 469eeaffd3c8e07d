/** A bounded walk over the working directory, and the glob patterns find and grep take. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { LIMITS, compileLinearRegex, type LinearMatcher } from '../../core/index.js';

/** Directories the search tools skip unless asked not to. */
export const IGNORED_DIRS: ReadonlySet<string> = new Set(['.git', 'node_modules']);

/** What a walk found, and whether it stopped at the file bound. */
export interface WalkResult {
  files: string[];
  /** True when the walk stopped at LIMITS.walkToolFiles. */
  capped: boolean;
  /** Symbolic links met and not followed, so a link cannot loop or lead out of the tree: how many, and the first few. */
  links: { count: number; names: string[] };
  /** FIFOs, sockets and devices passed over: reading one would block or never end. */
  special: number;
}

/** Every file under `root` (relative paths, sorted per directory), skipping IGNORED_DIRS unless `all`; symbolic links are listed apart, not followed. */
export async function walkFiles(root: string, options: { all?: boolean; signal?: AbortSignal } = {}): Promise<WalkResult> {
  const files: string[] = [];
  const links = { count: 0, names: [] as string[] };
  let special = 0;
  const pending = [''];
  while (pending.length) {
    options.signal?.throwIfAborted();
    const relative = pending.shift()!;
    let entries;
    try {
      entries = await fs.readdir(path.join(root, relative), { withFileTypes: true });
    } catch {
      continue; // unreadable directories are skipped, like find(1) does after reporting
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!options.all && IGNORED_DIRS.has(entry.name)) continue;
        pending.push(child);
      } else if (entry.isFile()) {
        if (files.length >= LIMITS.walkToolFiles) return { files, capped: true, links, special };
        files.push(child);
      } else if (entry.isSymbolicLink()) {
        if (links.count++ < LIMITS.walkNoticeNames) links.names.push(child);
      } else if (entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice()) {
        special++;
      }
    }
  }
  return { files, capped: false, links, special };
}

/** A glob that cannot be compiled; its message speaks of the glob, never of a RegExp. */
export class GlobError extends Error {}

/**
 * A glob as a matcher of whole "/"-separated relative paths: `*` and `?` stay
 * in one path segment, `**` spans segments, `{a,b}` is an alternative. A
 * pattern without "/" matches the file name at any depth. It is compiled for a
 * linear-time engine: a glob such as `*a*a*a*a*b` would make a backtracking
 * RegExp take time exponential in its stars. Throws a GlobError for an
 * unbalanced brace.
 */
export function compileGlob(glob: string): LinearMatcher {
  const pattern = glob.includes('/') ? glob.replace(/^\.\//, '') : `**/${glob}`;
  let out = '';
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*') {
      if (pattern[i + 1] === '*') {
        const slash = pattern[i + 2] === '/';
        out += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else out += '[^/]*';
    } else if (char === '?') out += '[^/]';
    else if (char === '{') {
      out += '(?:';
      depth++;
    } else if (char === '}' && depth > 0) {
      out += ')';
      depth--;
    } else if (char === ',' && depth > 0) out += '|';
    else out += char.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  // Said in the glob's own terms: the regular expression it would have become is an internal detail.
  if (depth > 0) throw new GlobError(`invalid glob ${JSON.stringify(glob)}: ${depth === 1 ? 'a "{" is' : `${depth} "{" are`} not closed with "}"`);
  return compileLinearRegex(`^${out}$`);
}

/** The notice find and grep add when a walk passed symbolic links by. */
export function linksNotice(links: WalkResult['links']): string | undefined {
  if (links.count === 0) return undefined;
  const more = links.count > links.names.length ? ` and ${links.count - links.names.length} more` : '';
  return `[${links.count} symbolic link${links.count === 1 ? ' was' : 's were'} not followed: ${links.names.join(', ')}${more}; give the link's target as path to search it]`;
}
