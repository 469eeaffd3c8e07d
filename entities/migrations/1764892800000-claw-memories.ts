/**
 * Tool memory: `claw_memories` (portable, Table API) and, on SQLite, its
 * full-text index — an external-content FTS5 table over the text and tags
 * (porter stemming over unicode61, diacritics folded) that triggers keep in
 * sync inside the writing transaction, so a memory and its index entry are
 * committed or rolled back together. Another database builds its own index
 * in its own migration (PostgreSQL: a tsvector column with a GIN index).
 */
import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/** The FTS5 table; plugins/memory's SQLite index queries it. */
export const MEMORY_FTS_TABLE = 'claw_memories_fts';

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
    if (isSqlite(queryRunner)) for (const statement of SQLITE_FTS) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (isSqlite(queryRunner)) {
      for (const trigger of ['insert', 'delete', 'update']) await queryRunner.query(`DROP TRIGGER IF EXISTS claw_memories_fts_${trigger}`);
      await queryRunner.query(`DROP TABLE IF EXISTS ${MEMORY_FTS_TABLE}`);
    }
    await queryRunner.dropTable('claw_memories');
  }
}
