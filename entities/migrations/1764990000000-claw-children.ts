/**
 * Durable child agents (issue 16): the children, their journaled inputs,
 * their final transcripts in chunks, and the link from usage ledger rows to
 * the child that spent them. Portable column types (SQLite and PostgreSQL).
 */
import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

function toChild(name: string): TableForeignKey {
  return new TableForeignKey({ name, columnNames: ['child_id'], referencedTableName: 'claw_children', referencedColumnNames: ['id'], onDelete: 'CASCADE' });
}

export class ClawChildren1764990000000 implements MigrationInterface {
  name = 'ClawChildren1764990000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'claw_children',
        columns: [
          { name: 'id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'group_name', type: 'varchar', length: '64' },
          { name: 'parent_session_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'label', type: 'varchar', length: '64', isNullable: true },
          { name: 'task', type: 'text' },
          { name: 'access', type: 'varchar', length: '16' },
          { name: 'config', type: 'text' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'result', type: 'text', isNullable: true },
          { name: 'error', type: 'text', isNullable: true },
          { name: 'model_calls', type: 'integer' },
          { name: 'tokens', type: 'bigint' },
          { name: 'transcript_chunks', type: 'integer' },
          { name: 'created_at', type: 'bigint' },
          { name: 'ended_at', type: 'bigint', isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'idx_claw_children_group', columnNames: ['group_name', 'created_at'] }),
          new TableIndex({ name: 'idx_claw_children_status', columnNames: ['status'] }),
        ],
        foreignKeys: [new TableForeignKey({ name: 'fk_claw_children_group', columnNames: ['group_name'], referencedTableName: 'claw_groups', referencedColumnNames: ['name'] })],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'claw_child_inputs',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'child_id', type: 'varchar', length: '64' },
          { name: 'lane', type: 'varchar', length: '16' },
          { name: 'text', type: 'text' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'created_at', type: 'bigint' },
          { name: 'consumed_at', type: 'bigint', isNullable: true },
        ],
        indices: [new TableIndex({ name: 'idx_claw_child_inputs_child', columnNames: ['child_id', 'id'] })],
        foreignKeys: [toChild('fk_claw_child_inputs_child')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'claw_child_transcript_chunks',
        columns: [
          { name: 'child_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'seq', type: 'integer', isPrimary: true },
          { name: 'body', type: 'text' },
        ],
        foreignKeys: [toChild('fk_claw_child_transcript_child')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'claw_child_usage',
        columns: [
          { name: 'usage_id', type: 'integer', isPrimary: true },
          { name: 'child_id', type: 'varchar', length: '64' },
        ],
        indices: [new TableIndex({ name: 'idx_claw_child_usage_child', columnNames: ['child_id'] })],
        foreignKeys: [
          new TableForeignKey({ name: 'fk_claw_child_usage_usage', columnNames: ['usage_id'], referencedTableName: 'claw_usage', referencedColumnNames: ['id'] }),
          new TableForeignKey({ name: 'fk_claw_child_usage_child', columnNames: ['child_id'], referencedTableName: 'claw_children', referencedColumnNames: ['id'] }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['claw_child_usage', 'claw_child_transcript_chunks', 'claw_child_inputs', 'claw_children']) await queryRunner.dropTable(table);
  }
}
