/**
 * The full-text search behind memory, one implementation per database. The
 * memories table and its writes are portable; only ranking is not, so it
 * sits behind this interface (SQLite: FTS5 with bm25 in sqlite-fts5-index.ts;
 * PostgreSQL: tsvector and ts_rank_cd in postgres-fts-index.ts).
 */
import type { DataSource } from 'typeorm';
import { ErrorCodes, XdogError } from '../../core/index.js';
import type { Sql } from '../sessions/tokens.js';
import type { MemoryQuery } from './query.js';
import { PostgresFtsIndex } from './postgres-fts-index.js';
import { SqliteFts5Index } from './sqlite-fts5-index.js';

/** One match: the memory's id and whether it holds the query's words as one phrase. */
export interface MemoryHit {
  id: number;
  phrase: boolean;
}

export interface MemoryIndex {
  /**
   * The group's memories that hold any of the query's words, best first:
   * those holding all of them as a phrase (in order, adjacent), then by
   * relevance, newer first on a tie. At most `limit`; never another group's.
   */
  search(sql: Sql, group: string, query: MemoryQuery, limit: number): Promise<MemoryHit[]>;
}

/** The index for a DataSource's database (the claw store is SQLite or PostgreSQL). */
export function memoryIndexFor(dataSource: DataSource): MemoryIndex {
  const type: string = dataSource.options.type;
  if (type === 'better-sqlite3') return new SqliteFts5Index();
  if (type === 'postgres') return new PostgresFtsIndex();
  throw new XdogError(ErrorCodes.UNSUPPORTED, `memory search is not available on a ${type} claw store`, {
    hint: 'point claw.store at SQLite or PostgreSQL, or leave the memory tools out of enabled_tools',
  });
}
