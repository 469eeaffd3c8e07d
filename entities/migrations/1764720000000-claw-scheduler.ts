/** The scheduler's jobs and runs and the resets' state (entities/claw-scheduler-entities.ts), with the portable Table API. */
import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner, type TableColumnOptions } from 'typeorm';

const groupName: TableColumnOptions = { name: 'group_name', type: 'varchar', length: '64' };
const epochMs = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'bigint', isNullable: nullable });
const groupKey = (name: string): TableForeignKey => new TableForeignKey({ name, columnNames: ['group_name'], referencedTableName: 'claw_groups', referencedColumnNames: ['name'] });

export class ClawScheduler1764720000000 implements MigrationInterface {
  name = 'ClawScheduler1764720000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'claw_schedule_jobs',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          groupName,
          { name: 'name', type: 'varchar', length: '64' },
          { name: 'kind', type: 'varchar', length: '16' },
          { name: 'cron', type: 'text', isNullable: true },
          { name: 'timezone', type: 'varchar', length: '64', isNullable: true },
          { name: 'every_seconds', type: 'integer', isNullable: true },
          epochMs('run_at', true),
          { name: 'target', type: 'varchar', length: '16' },
          { name: 'prompt', type: 'text' },
          { name: 'grace_seconds', type: 'integer' },
          { name: 'paused', type: 'boolean' },
          epochMs('next_run_at', true),
          epochMs('created_at'),
          epochMs('updated_at'),
        ],
        indices: [
          new TableIndex({ name: 'idx_claw_schedule_jobs_group_name', columnNames: ['group_name', 'name'], isUnique: true }),
          new TableIndex({ name: 'idx_claw_schedule_jobs_next', columnNames: ['next_run_at'] }),
        ],
        foreignKeys: [groupKey('fk_claw_schedule_jobs_group')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'claw_schedule_runs',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'job_id', type: 'varchar', length: '36' },
          groupName,
          epochMs('due_at'),
          { name: 'cause', type: 'varchar', length: '16' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'session_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'error', type: 'text', isNullable: true },
          epochMs('started_at', true),
          epochMs('ended_at', true),
          epochMs('input_tokens', true),
          epochMs('output_tokens', true),
          epochMs('created_at'),
        ],
        indices: [
          new TableIndex({ name: 'idx_claw_schedule_runs_occurrence', columnNames: ['job_id', 'due_at', 'cause'], isUnique: true }),
          new TableIndex({ name: 'idx_claw_schedule_runs_status', columnNames: ['group_name', 'status'] }),
        ],
        foreignKeys: [
          new TableForeignKey({ name: 'fk_claw_schedule_runs_job', columnNames: ['job_id'], referencedTableName: 'claw_schedule_jobs', referencedColumnNames: ['id'] }),
          groupKey('fk_claw_schedule_runs_group'),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'claw_reset_state',
        columns: [{ ...groupName, isPrimary: true }, { name: 'session_id', type: 'varchar', length: '36' }, epochMs('since')],
        foreignKeys: [groupKey('fk_claw_reset_state_group')],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['claw_reset_state', 'claw_schedule_runs', 'claw_schedule_jobs']) await queryRunner.dropTable(table);
  }
}
