/** Children's compaction archives (entities/claw-children-entities.ts): the complete history before each compaction, with the portable Table API. */
import { Table, TableForeignKey, type MigrationInterface, type QueryRunner } from 'typeorm';

export class ClawChildArchives1766300000000 implements MigrationInterface {
  name = 'ClawChildArchives1766300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'claw_child_compaction_archives',
        columns: [
          { name: 'child_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'generation', type: 'integer', isPrimary: true },
          { name: 'messages', type: 'text' },
          { name: 'message_count', type: 'integer' },
          { name: 'bytes', type: 'integer' },
          { name: 'created_at', type: 'bigint' },
        ],
        foreignKeys: [new TableForeignKey({ name: 'fk_claw_child_archives_child', columnNames: ['child_id'], referencedTableName: 'claw_children', referencedColumnNames: ['id'], onDelete: 'CASCADE' })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('claw_child_compaction_archives');
  }
}
