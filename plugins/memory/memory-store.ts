/**
 * A group's durable memory: write, search, list and forget, on the claw
 * store's database. Every operation runs through the session store's
 * connections (SessionStore.withTransaction/withRead), scoped to one group:
 * an id or a search never reaches another group's memories.
 */
import { ErrorCodes, XdogError, type Clock } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { MAX_ROW_ID, type SessionStore, type Sql } from '../sessions/tokens.js';
import { checkMemoryTags, checkMemoryText, type MemoryEntry, type MemoryInput, type MemorySource } from './entry.js';
import type { MemoryIndex } from './memory-index.js';
import { parseMemoryQuery } from './query.js';

/** Results a search returns when the caller names no limit. */
export const DEFAULT_SEARCH_RESULTS = 8;
/** Memories a list page holds when the caller names no limit. */
export const DEFAULT_LIST_PAGE = 50;

export interface MemoryWriteResult {
  entry: MemoryEntry;
  /** True when the group already held this exact text: the existing memory is returned, nothing is written. */
  duplicate: boolean;
}

export interface MemorySearchHit extends MemoryEntry {
  /** The memory holds the query's words as one phrase (these come first). */
  phrase: boolean;
}

export interface MemoryPage {
  /** Newest first. */
  entries: MemoryEntry[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  nextBefore: number | null;
}

interface MemoryRow {
  id: number;
  group_name: string;
  text: string;
  tags: string;
  session_id: string | null;
  source: string;
  created_at: number | string;
}

const COLUMNS = 'id, group_name, text, tags, session_id, source, created_at';

function toEntry(row: MemoryRow): MemoryEntry {
  return {
    id: Number(row.id),
    group: row.group_name,
    text: row.text,
    tags: row.tags ? row.tags.split(' ') : [],
    sessionId: row.session_id,
    source: row.source as MemorySource,
    createdAt: Number(row.created_at),
  };
}

function checkCount(what: string, value: number | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${what} must be a whole number of at least 1`, { hint: `pass 1 to ${max}` });
  if (value > max) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${what} is ${value}, more than the ${max} allowed`, { hint: `pass at most ${max}` });
  return value;
}

function checkId(id: number): number {
  if (!Number.isSafeInteger(id) || id < 1 || id > MAX_ROW_ID) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${JSON.stringify(id)} is not a memory id`, { hint: 'memory ids are the numbers `xdog claw memory list` shows' });
  return id;
}

export class MemoryStore {
  readonly #store: SessionStore;
  readonly #index: MemoryIndex;
  readonly #clock: Clock;

  constructor(options: { store: SessionStore; index: MemoryIndex; clock: Clock }) {
    this.#store = options.store;
    this.#index = options.index;
    this.#clock = options.clock;
  }

  /**
   * Saves a memory (text and tags checked first). The exact text the group
   * already holds is not saved twice. LIMIT_EXCEEDED when the group holds
   * LIMITS.memoryEntriesPerGroup memories; nothing is written then.
   */
  async write(group: string, input: MemoryInput): Promise<MemoryWriteResult> {
    const text = checkMemoryText(input.text);
    const tags = checkMemoryTags(input.tags).join(' ');
    return this.#store.withTransaction(async (sql) => {
      const [existing] = await sql.all<MemoryRow>(`SELECT ${COLUMNS} FROM claw_memories WHERE group_name = :group AND text = :text LIMIT 1`, { group, text });
      if (existing) return { entry: toEntry(existing), duplicate: true };
      const [{ count }] = await sql.all<{ count: number | string }>('SELECT COUNT(*) AS count FROM claw_memories WHERE group_name = :group', { group });
      if (Number(count) >= LIMITS.memoryEntriesPerGroup) {
        throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `group ${group} already keeps ${LIMITS.memoryEntriesPerGroup} memories, the most one group may`, {
          hint: `forget ones that no longer matter (xdog claw memory list --group ${group}, then xdog claw memory forget ID)`,
        });
      }
      const [row] = await sql.all<MemoryRow>(
        `INSERT INTO claw_memories (group_name, text, tags, session_id, source, created_at) VALUES (:group, :text, :tags, :session, :source, :now) RETURNING ${COLUMNS}`,
        { group, text, tags, session: input.sessionId ?? null, source: input.source, now: this.#clock.now() },
      );
      return { entry: toEntry(row!), duplicate: false };
    });
  }

  /** The group's memories matching the query's words, best first (see MemoryIndex.search). */
  async search(group: string, queryText: string, limit?: number): Promise<MemorySearchHit[]> {
    const query = parseMemoryQuery(queryText);
    const count = checkCount('the search limit', limit, DEFAULT_SEARCH_RESULTS, LIMITS.memorySearchResults);
    return this.#store.withRead(async (sql) => {
      const hits = await this.#index.search(sql, group, query, count);
      const entries = await this.#rowsById(sql, group, hits.map((hit) => hit.id));
      return hits.flatMap((hit) => {
        const entry = entries.get(hit.id);
        return entry ? [{ ...entry, phrase: hit.phrase }] : [];
      });
    });
  }

  /** A page of the group's memories, newest first; `before` (an id) continues after a previous page. */
  async list(group: string, options: { limit?: number; before?: number } = {}): Promise<MemoryPage> {
    const limit = checkCount('the list limit', options.limit, DEFAULT_LIST_PAGE, LIMITS.memoryListPage);
    // No sentinel id for "from the newest": ids are 32-bit integers on PostgreSQL.
    const before = options.before === undefined ? undefined : checkId(options.before);
    const older = before === undefined ? '' : 'AND id < :before';
    const rows = await this.#store.withRead((sql) =>
      sql.all<MemoryRow>(`SELECT ${COLUMNS} FROM claw_memories WHERE group_name = :group ${older} ORDER BY id DESC LIMIT :limit`, { group, before, limit: limit + 1 }),
    );
    const entries = rows.slice(0, limit).map(toEntry);
    return { entries, nextBefore: rows.length > limit ? entries.at(-1)!.id : null };
  }

  /** Deletes one memory of the group and returns it; NOT_FOUND for an id the group does not have. */
  async forget(group: string, id: number): Promise<MemoryEntry> {
    checkId(id);
    return this.#store.withTransaction(async (sql) => {
      const [row] = await sql.all<MemoryRow>(`SELECT ${COLUMNS} FROM claw_memories WHERE group_name = :group AND id = :id`, { group, id });
      if (!row) throw new XdogError(ErrorCodes.NOT_FOUND, `group ${group} has no memory ${id}`, { hint: `list its memories with \`xdog claw memory list --group ${group}\`` });
      await sql.run('DELETE FROM claw_memories WHERE group_name = :group AND id = :id', { group, id });
      return toEntry(row);
    });
  }

  async #rowsById(sql: Sql, group: string, ids: readonly number[]): Promise<Map<number, MemoryEntry>> {
    if (ids.length === 0) return new Map();
    const params: Record<string, unknown> = { group };
    ids.forEach((id, index) => (params[`id${index}`] = id));
    const placeholders = ids.map((_id, index) => `:id${index}`).join(', ');
    const rows = await sql.all<MemoryRow>(`SELECT ${COLUMNS} FROM claw_memories WHERE group_name = :group AND id IN (${placeholders})`, params);
    return new Map(rows.map((row) => [Number(row.id), toEntry(row)]));
  }
}
