/**
 * A session's whole tree from its flat pages (a store's `tree()` or the
 * gateway's `session.tree`), and its outline for display. Both walk with
 * explicit loops and stacks: a session may hold a chain of thousands of
 * entries, which no recursion may follow.
 */
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import type { TreeEntry, TreePage } from './types.js';

/** Every entry of a session, flat, in id order; `onPath` marks the path to `leafEntryId`. */
export interface SessionTree {
  sessionId: string;
  leafEntryId: number | null;
  entries: TreeEntry[];
}

/**
 * Where the next page starts: its cursor, and the session the first page
 * answered for (a read of "the active session" stays on the one it started on).
 */
export interface NextTreePage {
  cursor: number;
  sessionId: string;
}

/** Reads one page: the first when `next` is undefined. */
export type TreePageReader = (next: NextTreePage | undefined) => Promise<TreePage>;

/** Every page `page` reads, in order; a cursor that does not move on (which would read forever) is an error. */
export async function* treePages(page: TreePageReader): AsyncGenerator<TreePage> {
  let cursor: number | undefined;
  let sessionId: string | undefined;
  for (;;) {
    const next = await page(cursor === undefined ? undefined : { cursor, sessionId: sessionId! });
    sessionId ??= next.sessionId;
    yield next;
    if (next.nextCursor === null) return;
    if ((cursor !== undefined && next.nextCursor <= cursor) || next.entries.length === 0) {
      throw new XdogError(ErrorCodes.INVALID_STATE, `the tree pages of session ${next.sessionId} do not move on (cursor ${next.nextCursor} after ${cursor ?? 'the start'})`, {
        hint: 'restart the gateway; if it persists, report it',
      });
    }
    cursor = next.nextCursor;
  }
}

/**
 * Reads every page, at most LIMITS.clawTreeReadEntries entries. The path is
 * marked again from the last page's leaf, so a leaf that moved between pages
 * cannot leave two paths marked.
 */
export async function readWholeTree(page: TreePageReader): Promise<SessionTree> {
  const entries: TreeEntry[] = [];
  let last: TreePage | undefined;
  for await (const read of treePages(page)) {
    last = read;
    entries.push(...read.entries);
    if (entries.length > LIMITS.clawTreeReadEntries) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `session ${read.sessionId} has over ${LIMITS.clawTreeReadEntries} entries, more than one read of its whole tree takes`, {
        hint: 'read it page by page (session.tree with cursor) or export it (`xdog claw sessions export`)',
      });
    }
  }
  const { sessionId, leafEntryId } = last!;
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const onPath = new Set<number>();
  for (let id = leafEntryId; id !== null && !onPath.has(id); id = byId.get(id)?.parentId ?? null) onPath.add(id);
  return { sessionId, leafEntryId, entries: entries.map((entry) => ({ ...entry, onPath: onPath.has(entry.id) })) };
}

/**
 * The entries in depth-first order (children in id order) with their depth: a
 * chain of single children stays at its depth, a fork indents its branches.
 * An entry whose parent is not among them is a root.
 */
export function treeOutline(entries: readonly TreeEntry[]): Array<{ entry: TreeEntry; depth: number }> {
  const children = new Map<number, TreeEntry[]>();
  const roots: TreeEntry[] = [];
  const ids = new Set(entries.map((entry) => entry.id));
  for (const entry of [...entries].sort((a, b) => a.id - b.id)) {
    if (entry.parentId === null || !ids.has(entry.parentId)) roots.push(entry);
    else {
      const siblings = children.get(entry.parentId);
      if (siblings) siblings.push(entry);
      else children.set(entry.parentId, [entry]);
    }
  }
  const outline: Array<{ entry: TreeEntry; depth: number }> = [];
  const stack = [...roots].reverse().map((entry) => ({ entry, depth: 0 }));
  while (stack.length > 0) {
    const { entry, depth } = stack.pop()!;
    outline.push({ entry, depth });
    const below = children.get(entry.id) ?? [];
    const next = below.length > 1 ? depth + 1 : depth;
    for (const child of [...below].reverse()) stack.push({ entry: child, depth: next });
  }
  return outline;
}
