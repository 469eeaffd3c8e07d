/**
 * The names of memory's full-text index (created by the claw-memories
 * migration), in a module without typeorm: plugins/memory queries them from
 * every kernel that loads it.
 */

/** The FTS5 table (SQLite) or the tsvector table (PostgreSQL); plugins/memory's indexes query it. */
export const MEMORY_FTS_TABLE = 'claw_memories_fts';

/** The PostgreSQL text search configuration memory is indexed and searched with. */
export const MEMORY_TS_CONFIG = 'claw_memory';
