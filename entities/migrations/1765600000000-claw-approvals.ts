/** Durable tool approvals (plugins/approvals), with the portable Table API. */
import { Table, TableForeignKey, TableIndex, TableUnique, type MigrationInterface, type QueryRunner } from 'typeorm';

export class ClawApprovals1765600000000 implements MigrationInterface {
  name = 'ClawApprovals1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'claw_approvals',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'group_name', type: 'varchar', length: '64' },
          { name: 'session_id', type: 'varchar', length: '36' },
          { name: 'tool_call_id', type: 'varchar', length: '256' },
          { name: 'tool_name', type: 'varchar', length: '256' },
          { name: 'args', type: 'text' },
          { name: 'reason', type: 'text' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'answer', type: 'text', isNullable: true },
          { name: 'answered_by', type: 'varchar', length: '200', isNullable: true },
          { name: 'run_state', type: 'varchar', length: '16' },
          { name: 'created_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
          { name: 'answered_at', type: 'bigint', isNullable: true },
        ],
        uniques: [new TableUnique({ name: 'uq_claw_approvals_call', columnNames: ['session_id', 'tool_call_id'] })],
        indices: [new TableIndex({ name: 'ix_claw_approvals_group_status', columnNames: ['group_name', 'status'] })],
        foreignKeys: [new TableForeignKey({ name: 'fk_claw_approvals_session', columnNames: ['session_id'], referencedTableName: 'claw_sessions', referencedColumnNames: ['id'], onDelete: 'CASCADE' })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('claw_approvals');
  }
}
