/**
 * Several gateway workers on one store (issue 18): the workers' registry and
 * heartbeats, method calls handed to a group's owner, and the events an owner
 * relays to workers whose clients follow its groups. Portable Table API, so
 * the same migration runs on SQLite and PostgreSQL.
 */
import { Table, TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

export class ClawWorkers1765300000000 implements MigrationInterface {
  name = 'ClawWorkers1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'claw_workers',
        columns: [
          { name: 'id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'name', type: 'varchar', length: '128' },
          { name: 'pid', type: 'integer' },
          { name: 'host', type: 'text' },
          { name: 'socket', type: 'text' },
          { name: 'started_at', type: 'bigint' },
          { name: 'heartbeat_at', type: 'bigint' },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'claw_handoffs',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'group_name', type: 'varchar', length: '64' },
          { name: 'method', type: 'varchar', length: '128' },
          { name: 'params', type: 'text' },
          { name: 'from_worker', type: 'varchar', length: '128' },
          { name: 'created_at', type: 'bigint' },
          // pending → running → done, or pending → abandoned (the caller stopped waiting; it never runs)
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'result', type: 'text', isNullable: true },
          { name: 'error', type: 'text', isNullable: true },
        ],
        indices: [new TableIndex({ name: 'idx_claw_handoffs_pending', columnNames: ['state', 'group_name'] })],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'claw_relay_interest',
        columns: [
          { name: 'group_name', type: 'varchar', length: '64', isPrimary: true },
          { name: 'worker_id', type: 'varchar', length: '128', isPrimary: true },
          { name: 'expires_at', type: 'bigint' },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'claw_relay_events',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'group_name', type: 'varchar', length: '64' },
          { name: 'session_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'method', type: 'varchar', length: '128' },
          { name: 'params', type: 'text' },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [new TableIndex({ name: 'idx_claw_relay_events_group', columnNames: ['group_name', 'id'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['claw_relay_events', 'claw_relay_interest', 'claw_handoffs', 'claw_workers']) await queryRunner.dropTable(table);
  }
}
