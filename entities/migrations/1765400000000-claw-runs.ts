/** The run log (plugins/claw-runs): one row per run of a group, with the portable Table API. */
import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class ClawRuns1765400000000 implements MigrationInterface {
  name = 'ClawRuns1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'claw_runs',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'group_name', type: 'varchar', length: '64' },
          { name: 'session_id', type: 'varchar', length: '36' },
          { name: 'input_id', type: 'varchar', length: '32' },
          { name: 'source', type: 'varchar', length: '16' },
          { name: 'source_id', type: 'text' },
          { name: 'owner', type: 'varchar', length: '128' },
          { name: 'status', type: 'varchar', length: '32' },
          { name: 'error', type: 'text', isNullable: true },
          { name: 'started_at', type: 'bigint' },
          { name: 'ended_at', type: 'bigint' },
        ],
        indices: [
          new TableIndex({ name: 'idx_claw_runs_group_id', columnNames: ['group_name', 'id'] }),
          new TableIndex({ name: 'idx_claw_runs_group_started', columnNames: ['group_name', 'started_at'] }),
        ],
        foreignKeys: [new TableForeignKey({ name: 'fk_claw_runs_group', columnNames: ['group_name'], referencedTableName: 'claw_groups', referencedColumnNames: ['name'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('claw_runs');
  }
}
