/**
 * Memory search on SQLite: the FTS5 table the memories migration keeps in
 * sync (entities: MEMORY_FTS_TABLE), ranked with bm25. Every query word is
 * sent as an FTS5 string literal, so nothing a model writes is read as FTS5
 * syntax (no column filters, NEAR, prefixes or boolean operators).
 */
import { MEMORY_FTS_TABLE } from '../../entities/memory-fts-names.js';
import type { Sql } from '../sessions/tokens.js';
import type { MemoryHit, MemoryIndex } from './memory-index.js';
import type { MemoryQuery } from './query.js';

/** bm25 column weights: the text counts twice as much as the tags. */
const TEXT_WEIGHT = 2;
const TAGS_WEIGHT = 1;

/** An FTS5 string: double quotes around, inner quotes doubled. */
function literal(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

const SEARCH = `
  SELECT m.id AS id, m.id IN (SELECT rowid FROM ${MEMORY_FTS_TABLE} WHERE ${MEMORY_FTS_TABLE} MATCH :phrase) AS phrase
  FROM ${MEMORY_FTS_TABLE} JOIN claw_memories m ON m.id = ${MEMORY_FTS_TABLE}.rowid
  WHERE ${MEMORY_FTS_TABLE} MATCH :anyTerm AND m.group_name = :group
  ORDER BY phrase DESC, bm25(${MEMORY_FTS_TABLE}, ${TEXT_WEIGHT}, ${TAGS_WEIGHT}), m.id DESC
  LIMIT :limit`;

export class SqliteFts5Index implements MemoryIndex {
  async search(sql: Sql, group: string, query: MemoryQuery, limit: number): Promise<MemoryHit[]> {
    const rows = await sql.all<{ id: number; phrase: number }>(SEARCH, {
      // A phrase literal: its words in order and adjacent (one word: that word).
      phrase: literal(query.terms.join(' ')),
      anyTerm: query.terms.map(literal).join(' OR '),
      group,
      limit,
    });
    return rows.map((row) => ({ id: Number(row.id), phrase: Boolean(row.phrase) }));
  }
}
