/**
 * The first claw schema: groups, sessions, entries, per-session state, the
 * usage ledger, idempotency keys and group leases. Written with the
 * QueryRunner Table API (no dialect SQL), so the same migration builds the
 * schema on SQLite and on PostgreSQL.
 */
import { Table, TableForeignKey, TableIndex, type MigrationInterface, type QueryRunner, type TableColumnOptions } from 'typeorm';
import { ClawScheduler1764720000000 } from './1764720000000-claw-scheduler.js';
import { ClawAccess1764806400000 } from './1764806400000-claw-access.js';
import { ClawMemories1764892800000 } from './1764892800000-claw-memories.js';
import { ClawChildren1764990000000 } from './1764990000000-claw-children.js';
import { ClawChannels1765017600000 } from './1765017600000-claw-channels.js';
import { ClawTurnSkills1765180800000 } from './1765180800000-claw-turn-skills.js';
import { ClawWorkers1765300000000 } from './1765300000000-claw-workers.js';
import { ClawRuns1765400000000 } from './1765400000000-claw-runs.js';
import { ClawTodos1765500000000 } from './1765500000000-claw-todos.js';
import { ClawApprovals1765600000000 } from './1765600000000-claw-approvals.js';
import { ClawGoals1765700000000 } from './1765700000000-claw-goals.js';
import { ClawApprovalRules1766200000000 } from './1766200000000-claw-approval-rules.js';
import { ClawChildQueue1766250000000 } from './1766250000000-claw-child-queue.js';
import { ClawChildArchives1766300000000 } from './1766300000000-claw-child-archives.js';

const groupName = (name = 'group_name'): TableColumnOptions => ({ name, type: 'varchar', length: '64' });
const uuid = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'varchar', length: '36', isNullable: nullable });
const epochMs = (name: string): TableColumnOptions => ({ name, type: 'bigint' });
const text = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'text', isNullable: nullable });
const generatedId: TableColumnOptions = { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' };

function foreignKey(name: string, column: string, table: string, referenced: string): TableForeignKey {
  return new TableForeignKey({ name, columnNames: [column], referencedTableName: table, referencedColumnNames: [referenced] });
}

export class ClawInitial1764547200000 implements MigrationInterface {
  name = 'ClawInitial1764547200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'claw_groups',
        columns: [{ ...groupName('name'), isPrimary: true }, uuid('active_session_id', true), { name: 'revision', type: 'integer' }, epochMs('created_at')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'claw_sessions',
        columns: [
          { ...uuid('id'), isPrimary: true },
          groupName(),
          text('name', true),
          text('name_folded', true),
          text('summary', true),
          text('summary_folded', true),
          uuid('parent_session_id', true),
          { name: 'fork_entry_id', type: 'integer', isNullable: true },
          { name: 'leaf_entry_id', type: 'integer', isNullable: true },
          { name: 'archived', type: 'boolean' },
          { name: 'message_count', type: 'integer' },
          epochMs('created_at'),
          epochMs('updated_at'),
        ],
        indices: [new TableIndex({ name: 'idx_claw_sessions_group_updated', columnNames: ['group_name', 'archived', 'updated_at'] })],
        foreignKeys: [
          foreignKey('fk_claw_sessions_group', 'group_name', 'claw_groups', 'name'),
          foreignKey('fk_claw_sessions_parent', 'parent_session_id', 'claw_sessions', 'id'),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'claw_entries',
        columns: [
          generatedId,
          uuid('session_id'),
          { name: 'parent_id', type: 'integer', isNullable: true },
          { name: 'kind', type: 'varchar', length: '32' },
          text('payload'),
          epochMs('created_at'),
        ],
        indices: [
          new TableIndex({ name: 'idx_claw_entries_session', columnNames: ['session_id', 'id'] }),
          new TableIndex({ name: 'idx_claw_entries_parent', columnNames: ['parent_id'] }),
        ],
        foreignKeys: [
          foreignKey('fk_claw_entries_session', 'session_id', 'claw_sessions', 'id'),
          foreignKey('fk_claw_entries_parent', 'parent_id', 'claw_entries', 'id'),
        ],
      }),
    );
    // The references that close the cycles groups → sessions → entries.
    await queryRunner.createForeignKeys('claw_groups', [foreignKey('fk_claw_groups_active_session', 'active_session_id', 'claw_sessions', 'id')]);
    await queryRunner.createForeignKeys('claw_sessions', [
      foreignKey('fk_claw_sessions_fork_entry', 'fork_entry_id', 'claw_entries', 'id'),
      foreignKey('fk_claw_sessions_leaf_entry', 'leaf_entry_id', 'claw_entries', 'id'),
    ]);
    await queryRunner.createTable(
      new Table({
        name: 'claw_session_state',
        columns: [
          { ...uuid('session_id'), isPrimary: true },
          text('model'),
          { name: 'thinking', type: 'varchar', length: '32', isNullable: true },
          text('skills'),
          text('plan', true),
          text('extension_entries'),
        ],
        foreignKeys: [foreignKey('fk_claw_session_state_session', 'session_id', 'claw_sessions', 'id')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'claw_usage',
        columns: [
          generatedId,
          groupName(),
          uuid('session_id', true),
          text('model'),
          { name: 'input_tokens', type: 'bigint' },
          { name: 'output_tokens', type: 'bigint' },
          { name: 'cache_read_tokens', type: 'bigint' },
          { name: 'cache_write_tokens', type: 'bigint' },
          { name: 'cost', type: 'double precision', isNullable: true },
          { name: 'duration_ms', type: 'bigint' },
          epochMs('created_at'),
        ],
        indices: [
          new TableIndex({ name: 'idx_claw_usage_group_time', columnNames: ['group_name', 'created_at'] }),
          new TableIndex({ name: 'idx_claw_usage_session', columnNames: ['session_id'] }),
        ],
        foreignKeys: [
          foreignKey('fk_claw_usage_group', 'group_name', 'claw_groups', 'name'),
          foreignKey('fk_claw_usage_session', 'session_id', 'claw_sessions', 'id'),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'claw_input_keys',
        columns: [
          { ...groupName(), isPrimary: true },
          { name: 'input_key', type: 'varchar', length: '128', isPrimary: true },
          uuid('session_id'),
          epochMs('created_at'),
        ],
        foreignKeys: [
          foreignKey('fk_claw_input_keys_group', 'group_name', 'claw_groups', 'name'),
          foreignKey('fk_claw_input_keys_session', 'session_id', 'claw_sessions', 'id'),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'claw_group_leases',
        columns: [
          { ...groupName(), isPrimary: true },
          { name: 'owner_id', type: 'varchar', length: '128' },
          { name: 'pid', type: 'integer' },
          text('host'),
          text('info'),
          epochMs('expires_at'),
        ],
        indices: [new TableIndex({ name: 'idx_claw_group_leases_owner', columnNames: ['owner_id'] })],
        foreignKeys: [foreignKey('fk_claw_group_leases_group', 'group_name', 'claw_groups', 'name')],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['claw_group_leases', 'claw_input_keys', 'claw_usage', 'claw_session_state']) await queryRunner.dropTable(table);
    await queryRunner.dropForeignKey('claw_groups', 'fk_claw_groups_active_session');
    await queryRunner.dropForeignKey('claw_sessions', 'fk_claw_sessions_fork_entry');
    await queryRunner.dropForeignKey('claw_sessions', 'fk_claw_sessions_leaf_entry');
    for (const table of ['claw_entries', 'claw_sessions', 'claw_groups']) await queryRunner.dropTable(table);
  }
}

/** Every claw migration, oldest first. */
export const CLAW_MIGRATIONS = [
  ClawInitial1764547200000,
  ClawScheduler1764720000000,
  ClawAccess1764806400000,
  ClawMemories1764892800000,
  ClawChildren1764990000000,
  ClawChannels1765017600000,
  ClawTurnSkills1765180800000,
  ClawWorkers1765300000000,
  ClawRuns1765400000000,
  ClawTodos1765500000000,
  ClawApprovals1765600000000,
  ClawGoals1765700000000,
  ClawApprovalRules1766200000000,
  ClawChildQueue1766250000000,
  ClawChildArchives1766300000000,
];
