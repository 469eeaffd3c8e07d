/**
 * Read-only session catalogs for interactive extension commands
 * (`listSessions`, `getSessionTree`): a group's sessions and one session's
 * tree, in pages of at most 50 entries and 256 KiB, in a stable identity
 * order, each page carrying a revision of the catalog's membership. A
 * continuation whose revision no longer matches answers `stale` (no entries),
 * never a page of a different catalog.
 */
import { createHash } from 'node:crypto';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { messagePreview, readWholeTree, type Entry, type SessionRecord, type SessionStore } from '../sessions/tokens.js';
import type { SessionCatalogEntry, SessionCatalogPage, StaleSessionCatalogPage } from './api.js';
import type { SessionListRequest, SessionTreeRequest } from './protocol.js';

type CatalogEntry = SessionCatalogEntry;
type CatalogPage = SessionCatalogPage;
type StalePage = StaleSessionCatalogPage;

/** A host's session catalogs; 'unavailable' for a target outside the group. */
export interface ExtensionSessionCatalog {
  list(request: SessionListRequest): Promise<CatalogPage | StalePage>;
  tree(request: SessionTreeRequest): Promise<CatalogPage | StalePage | 'unavailable'>;
}

/** The catalogs of one group's sessions in the store. */
export function sessionCatalog(store: SessionStore, group: string, activeSession: () => string | null): ExtensionSessionCatalog {
  return {
    async list(request) {
      const query = request.query ?? '';
      const members = (await groupSessions(store, group)).filter((session) => matches(session, query));
      const owner = activeSession();
      const revision = revisionOf(['sessions', group, owner, query, ...members.map((session) => session.id)]);
      return paged({ scope: 'group', ownerSession: owner, query }, members.map((session) => sessionLine(session, owner)), request, revision);
    },
    async tree(request) {
      const owner = activeSession();
      const sessionId = request.sessionId ?? owner;
      if (!sessionId) return 'unavailable';
      const session = await store.getSession(sessionId).catch(() => undefined);
      if (!session || session.group !== group) return 'unavailable';
      const tree = await readWholeTree((next) => store.tree(sessionId, next && { cursor: next.cursor }));
      let entries = tree.entries;
      const branchId = request.branchId ?? null;
      if (branchId !== null) {
        const path = pathTo(entries, Number(branchId));
        if (!path) return 'unavailable';
        entries = path;
      }
      const depths = depthsOf(tree.entries);
      const lines = entries.map((entry) => treeLine(entry, depths.get(entry.id) ?? 0, entry.onPath));
      // Topology only (ids and parents): a moved leaf changes `active`, not the revision.
      const revision = revisionOf(['tree', sessionId, branchId, ...entries.map((entry) => `${entry.id}<${entry.parentId ?? ''}`)]);
      return paged({ scope: 'tree', ownerSession: owner, sessionId, branchId }, lines, request, revision);
    },
  };
}

/** Every session of the group (archived ones left out), in creation order: a session's own activity never moves it between pages. */
async function groupSessions(store: SessionStore, group: string): Promise<SessionRecord[]> {
  const byId = new Map<string, SessionRecord>();
  for (let offset = 0; ; offset += LIMITS.clawSessionsPerPage) {
    const batch = await store.listSessions(group, { offset, limit: LIMITS.clawSessionsPerPage });
    for (const session of batch) byId.set(session.id, session);
    if (byId.size > LIMITS.extensionSessionTraversal) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `group ${group} has over ${LIMITS.extensionSessionTraversal} sessions, more than one session catalog walks`, { hint: 'archive old sessions' });
    }
    if (batch.length < LIMITS.clawSessionsPerPage) break;
  }
  return [...byId.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function matches(session: SessionRecord, query: string): boolean {
  if (!query) return true;
  const folded = query.toLowerCase();
  return [session.id, session.name ?? '', session.summary ?? ''].some((text) => text.toLowerCase().includes(folded));
}

function sessionLine(session: SessionRecord, owner: string | null): CatalogEntry {
  return {
    id: session.id,
    kind: 'session',
    title: session.name ?? session.summary ?? '(untitled)',
    detail: `${session.messageCount} message${session.messageCount === 1 ? '' : 's'}${session.parentSessionId ? `, forked from ${session.parentSessionId}` : ''}`,
    session: session.id,
    active: session.id === owner,
  };
}

function treeLine(entry: Entry, depth: number, onPath: boolean): CatalogEntry {
  return { id: String(entry.id), kind: entry.kind, title: entryTitle(entry), detail: entry.kind === 'message' ? entry.payload.message.role : entry.kind, session: entry.sessionId, active: onPath, parent: entry.parentId === null ? null : String(entry.parentId), depth };
}

/** A one-line, bounded title: never a whole message or payload. */
function entryTitle(entry: Entry): string {
  switch (entry.kind) {
    case 'message':
      return messagePreview(entry.payload.message);
    case 'compaction':
    case 'branch_summary':
      return clip(entry.payload.summary);
    case 'model_change':
      return entry.payload.model;
    case 'thinking_change':
      return entry.payload.thinking ?? 'off';
    case 'label':
      return entry.payload.label ?? '(label cleared)';
    case 'custom':
      return entry.payload.type;
  }
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** Depth of each entry from its root; entries come in id order, a parent before its children (no recursion: chains may be long). */
function depthsOf(entries: readonly Entry[]): Map<number, number> {
  const depths = new Map<number, number>();
  for (const entry of entries) depths.set(entry.id, entry.parentId === null ? 0 : (depths.get(entry.parentId) ?? -1) + 1);
  return depths;
}

/** The entries from the root to `id`, root first, or undefined when the tree has no such entry. */
function pathTo<E extends Entry>(entries: readonly E[], id: number): E[] | undefined {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const path: E[] = [];
  for (let at = byId.get(id); at; at = at.parentId === null ? undefined : byId.get(at.parentId)) path.push(at);
  return path.length ? path.reverse() : undefined;
}

function revisionOf(parts: ReadonlyArray<string | null>): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

/** One page from `offset`: at most 50 entries, fewer when 256 KiB of JSON is reached (then `hasMore` points on). */
function paged(head: Omit<CatalogPage, 'status' | 'offset' | 'total' | 'entries' | 'hasMore' | 'nextOffset' | 'revision'>, lines: CatalogEntry[], request: { offset?: number; revision?: string }, revision: string): CatalogPage | StalePage {
  if (request.revision && request.revision !== revision) return { status: 'stale', revision, entries: [], hasMore: false, nextOffset: null };
  const offset = request.offset ?? 0;
  const entries = lines.slice(offset, offset + LIMITS.extensionSessionPageEntries);
  const page = (): CatalogPage => {
    const next = offset + entries.length;
    return { status: 'ok', ...head, offset, total: lines.length, entries, hasMore: next < lines.length, nextOffset: next < lines.length ? next : null, revision };
  };
  while (entries.length > 1 && Buffer.byteLength(JSON.stringify(page())) > LIMITS.extensionSessionPageBytes) entries.pop();
  return page();
}
