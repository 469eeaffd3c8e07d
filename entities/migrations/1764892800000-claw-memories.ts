/**
 * Tool memory: `claw_memories` (portable, Table API) and its full-text index,
 * which triggers keep in sync inside the writing transaction, so a memory and
 * its index entry are committed or rolled back together. SQLite: an
 * external-content FTS5 table over the text and tags (porter stemming over
 * unicode61, diacritics folded). PostgreSQL: a table of tsvectors (text and
 * tags apart, each with a GIN index) in a text search configuration of
 * English stemming without stop words, like FTS5's porter (every word counts).
 * Both are named MEMORY_FTS_TABLE and live outside the entities.
 */
import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { MEMORY_FTS_TABLE, MEMORY_TS_CONFIG } from '../memory-fts-names.js';

export { MEMORY_FTS_TABLE, MEMORY_TS_CONFIG };

const SQLITE_FTS = [
  `CREATE VIRTUAL TABLE ${MEMORY_FTS_TABLE} USING fts5(text, tags, content='claw_memories', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')`,
  `CREATE TRIGGER claw_memories_fts_insert AFTER INSERT ON claw_memories BEGIN
     INSERT INTO ${MEMORY_FTS_TABLE}(rowid, text, tags) VALUES (new.id, new.text, new.tags);
   END`,
  `CREATE TRIGGER claw_memories_fts_delete AFTER DELETE ON claw_memories BEGIN
     INSERT INTO ${MEMORY_FTS_TABLE}(${MEMORY_FTS_TABLE}, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);
   END`,
  `CREATE TRIGGER claw_memories_fts_update AFTER UPDATE ON claw_memories BEGIN
     INSERT INTO ${MEMORY_FTS_TABLE}(${MEMORY_FTS_TABLE}, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);
     INSERT INTO ${MEMORY_FTS_TABLE}(rowid, text, tags) VALUES (new.id, new.text, new.tags);
   END`,
];

const POSTGRES_FTS = [
  `CREATE TEXT SEARCH DICTIONARY claw_memory_stem (TEMPLATE = snowball, LANGUAGE = english)`,
  `CREATE TEXT SEARCH CONFIGURATION ${MEMORY_TS_CONFIG} (COPY = simple)`,
  `ALTER TEXT SEARCH CONFIGURATION ${MEMORY_TS_CONFIG} ALTER MAPPING FOR asciiword, word, numword, asciihword, hword, numhword, hword_asciipart, hword_part, hword_numpart WITH claw_memory_stem`,
  `CREATE TABLE ${MEMORY_FTS_TABLE} (
     memory_id integer PRIMARY KEY REFERENCES claw_memories (id) ON DELETE CASCADE,
     text_doc tsvector NOT NULL,
     tags_doc tsvector NOT NULL
   )`,
  `CREATE INDEX idx_claw_memories_fts_text ON ${MEMORY_FTS_TABLE} USING GIN (text_doc)`,
  `CREATE INDEX idx_claw_memories_fts_tags ON ${MEMORY_FTS_TABLE} USING GIN (tags_doc)`,
  `CREATE FUNCTION claw_memories_fts_sync() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     INSERT INTO ${MEMORY_FTS_TABLE} (memory_id, text_doc, tags_doc)
       VALUES (NEW.id, to_tsvector('${MEMORY_TS_CONFIG}', NEW.text), to_tsvector('${MEMORY_TS_CONFIG}', NEW.tags))
       ON CONFLICT (memory_id) DO UPDATE SET text_doc = EXCLUDED.text_doc, tags_doc = EXCLUDED.tags_doc;
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER claw_memories_fts_sync AFTER INSERT OR UPDATE OF text, tags ON claw_memories FOR EACH ROW EXECUTE FUNCTION claw_memories_fts_sync()`,
];

function isSqlite(queryRunner: QueryRunner): boolean {
  const type: string = queryRunner.connection.options.type;
  return type === 'better-sqlite3' || type === 'sqlite';
}

export class ClawMemories1764892800000 implements MigrationInterface {
  name = 'ClawMemories1764892800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'claw_memories',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'group_name', type: 'varchar', length: '64' },
          { name: 'text', type: 'text' },
          { name: 'tags', type: 'text' },
          { name: 'session_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'source', type: 'varchar', length: '16' },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [new TableIndex({ name: 'idx_claw_memories_group', columnNames: ['group_name', 'id'] })],
        foreignKeys: [new TableForeignKey({ name: 'fk_claw_memories_group', columnNames: ['group_name'], referencedTableName: 'claw_groups', referencedColumnNames: ['name'] })],
      }),
    );
    for (const statement of isSqlite(queryRunner) ? SQLITE_FTS : POSTGRES_FTS) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (isSqlite(queryRunner)) {
      for (const trigger of ['insert', 'delete', 'update']) await queryRunner.query(`DROP TRIGGER IF EXISTS claw_memories_fts_${trigger}`);
      await queryRunner.query(`DROP TABLE IF EXISTS ${MEMORY_FTS_TABLE}`);
    } else {
      await queryRunner.query('DROP TRIGGER IF EXISTS claw_memories_fts_sync ON claw_memories');
      await queryRunner.query('DROP FUNCTION IF EXISTS claw_memories_fts_sync()');
      await queryRunner.query(`DROP TABLE IF EXISTS ${MEMORY_FTS_TABLE}`);
      await queryRunner.query(`DROP TEXT SEARCH CONFIGURATION IF EXISTS ${MEMORY_TS_CONFIG}`);
      await queryRunner.query('DROP TEXT SEARCH DICTIONARY IF EXISTS claw_memory_stem');
    }
    await queryRunner.dropTable('claw_memories');
  }
}
