/** The todo lists of claw sessions (plugins/todos), with the portable Table API. */
import { Table, TableForeignKey, type MigrationInterface, type QueryRunner } from 'typeorm';

export class ClawTodos1765500000000 implements MigrationInterface {
  name = 'ClawTodos1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'claw_todos',
        columns: [
          { name: 'session_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'items', type: 'text' },
          { name: 'revision', type: 'integer' },
          { name: 'updated_at', type: 'bigint' },
        ],
        foreignKeys: [new TableForeignKey({ name: 'fk_claw_todos_session', columnNames: ['session_id'], referencedTableName: 'claw_sessions', referencedColumnNames: ['id'], onDelete: 'CASCADE' })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('claw_todos');
  }
}
