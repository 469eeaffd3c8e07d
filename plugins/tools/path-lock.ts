/**
 * One lock per file for the tools that change files (write, edit). A turn's
 * tool calls run in parallel, so two edits of one file would each read the
 * old content and the second write would silently undo the first. Every
 * mutating file tool runs its read-modify-write inside `withPathLock`: calls
 * on the same file (the same real path, whatever spelling or symlink names it)
 * run one at a time, in the order they were made.
 *
 * The locks are process-wide on purpose: the file system is shared by every
 * agent and kernel in the process, so two agents editing one file need the
 * same serialization as two calls of one agent.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { KeyedQueue } from '../../core/keyed-queue.js';

/** One queue per real path. */
const queue = new KeyedQueue();
/** Keys are resolved one call at a time so that calls join a path's queue in the order they were made. */
let resolving: Promise<unknown> = Promise.resolve();

/** The real path of `target`: its own when it exists, else its nearest existing ancestor's plus the rest. */
export async function lockKey(target: string): Promise<string> {
  const absolute = path.resolve(target);
  const missing: string[] = [];
  for (let current = absolute; ; current = path.dirname(current)) {
    try {
      return path.join(await fs.realpath(current), ...missing.reverse());
    } catch {
      // A missing (or unreadable) component: try its parent, remembering the name for the key.
      if (path.dirname(current) === current) return absolute;
      missing.push(path.basename(current));
    }
  }
}

/**
 * Runs `work` while holding the lock of `target`'s real path. Calls made in
 * order on one path run in that order; calls on other paths do not wait. When
 * `signal` is aborted while the call is still queued, `work` never starts and
 * the returned promise rejects with the abort reason.
 */
export function withPathLock<T>(target: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  // Wrapped in an object so that the next call's key resolution waits for this one's, not for its work.
  const joined = resolving.then(async () => ({ done: queue.run(await lockKey(target), work, signal) }));
  resolving = joined.catch(() => undefined);
  return joined.then(({ done }) => done);
}
