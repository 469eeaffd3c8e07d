/**
 * Goals and the attribution of spending (plugins/claw-goals): the goals of
 * groups, and on each usage-ledger row where its call came from (a prompt, a
 * schedule job, a goal, a child), so `xdog claw usage` sums cost by any of
 * them and budgets count in the store. The ledger's cost column exists since
 * the first schema; it is added here only for a store that lacks it.
 */
import { Table, TableColumn, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class ClawGoals1765700000000 implements MigrationInterface {
  name = 'ClawGoals1765700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (!(await queryRunner.hasColumn('claw_usage', 'cost'))) {
      await queryRunner.addColumn('claw_usage', new TableColumn({ name: 'cost', type: 'double precision', isNullable: true }));
    }
    await queryRunner.addColumns('claw_usage', [
      new TableColumn({ name: 'origin', type: 'varchar', length: '16', isNullable: true }),
      new TableColumn({ name: 'origin_id', type: 'varchar', length: '128', isNullable: true }),
    ]);
    await queryRunner.createIndex('claw_usage', new TableIndex({ name: 'idx_claw_usage_origin', columnNames: ['group_name', 'origin', 'origin_id'] }));
    await queryRunner.createTable(
      new Table({
        name: 'claw_goals',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'group_name', type: 'varchar', length: '64' },
          { name: 'session_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'text', type: 'text' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'budget_tokens', type: 'bigint', isNullable: true },
          { name: 'budget_cost', type: 'double precision', isNullable: true },
          { name: 'deadline_at', type: 'bigint', isNullable: true },
          { name: 'check_command', type: 'text', isNullable: true },
          { name: 'note', type: 'text', isNullable: true },
          { name: 'stop_reason', type: 'text', isNullable: true },
          { name: 'nudged_after', type: 'varchar', length: '128', isNullable: true },
          { name: 'nudges', type: 'integer' },
          { name: 'created_at', type: 'bigint' },
          { name: 'updated_at', type: 'bigint' },
        ],
        indices: [new TableIndex({ name: 'idx_claw_goals_group_status', columnNames: ['group_name', 'status'] })],
        foreignKeys: [new TableForeignKey({ name: 'fk_claw_goals_group', columnNames: ['group_name'], referencedTableName: 'claw_groups', referencedColumnNames: ['name'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('claw_goals');
    await queryRunner.dropIndex('claw_usage', 'idx_claw_usage_origin');
    await queryRunner.dropColumn('claw_usage', 'origin_id');
    await queryRunner.dropColumn('claw_usage', 'origin');
  }
}
