/** "Always allow" rules a person added from an approval (plugins/approvals), with the portable Table API. */
import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class ClawApprovalRules1766200000000 implements MigrationInterface {
  name = 'ClawApprovalRules1766200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'claw_approval_rules',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'group_name', type: 'varchar', length: '64' },
          { name: 'tool_name', type: 'varchar', length: '256' },
          { name: 'argv', type: 'text', isNullable: true },
          { name: 'approval_id', type: 'integer' },
          { name: 'created_by', type: 'varchar', length: '200' },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [new TableIndex({ name: 'ix_claw_approval_rules_group', columnNames: ['group_name'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('claw_approval_rules');
  }
}
