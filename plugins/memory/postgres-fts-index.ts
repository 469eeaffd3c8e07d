/**
 * Memory search on PostgreSQL: the tsvector table the memories migration
 * keeps in sync (entities: MEMORY_FTS_TABLE, configuration MEMORY_TS_CONFIG),
 * ranked with ts_rank_cd, the text weighing more than the tags (as the FTS5
 * index's bm25 weights). Every query word is a bound parameter turned into a
 * tsquery by plainto_tsquery/phraseto_tsquery, so nothing a model writes is
 * read as tsquery syntax.
 */
import { MEMORY_FTS_TABLE, MEMORY_TS_CONFIG } from '../../entities/memory-fts-names.js';
import type { Sql } from '../sessions/tokens.js';
import type { MemoryHit, MemoryIndex } from './memory-index.js';
import type { MemoryQuery } from './query.js';

/** ts_rank_cd weights {D, C, B, A}: text is A, tags are B, so the text counts twice as much. */
const WEIGHTS = `'{0.1, 0.2, 0.5, 1.0}'`;

/** The query for `count` words: any of them (an OR of one tsquery per word), the phrase first. */
function searchSql(count: number): string {
  const anyTerm = Array.from({ length: count }, (_, i) => `plainto_tsquery('${MEMORY_TS_CONFIG}', :term${i})`).join(' || ');
  return `
    SELECT m.id AS id, (f.text_doc @@ q.phrase OR f.tags_doc @@ q.phrase) AS phrase
    FROM ${MEMORY_FTS_TABLE} f
      JOIN claw_memories m ON m.id = f.memory_id
      CROSS JOIN (SELECT phraseto_tsquery('${MEMORY_TS_CONFIG}', :phrase) AS phrase, (${anyTerm}) AS any_term) q
    WHERE m.group_name = :group AND (f.text_doc @@ q.any_term OR f.tags_doc @@ q.any_term)
    ORDER BY phrase DESC, ts_rank_cd(${WEIGHTS}, setweight(f.text_doc, 'A') || setweight(f.tags_doc, 'B'), q.any_term) DESC, m.id DESC
    LIMIT :limit`;
}

export class PostgresFtsIndex implements MemoryIndex {
  async search(sql: Sql, group: string, query: MemoryQuery, limit: number): Promise<MemoryHit[]> {
    const params: Record<string, unknown> = { phrase: query.terms.join(' '), group, limit };
    query.terms.forEach((term, i) => (params[`term${i}`] = term));
    const rows = await sql.all<{ id: number; phrase: boolean }>(searchSql(query.terms.length), params);
    return rows.map((row) => ({ id: Number(row.id), phrase: row.phrase === true }));
  }
}
