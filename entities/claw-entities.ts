/**
 * The claw store's tables as typeorm EntitySchemas (no decorators). Column
 * types are the portable subset both SQLite (better-sqlite3) and PostgreSQL
 * support: varchar, text, integer, bigint (epoch milliseconds, read back as
 * numbers), boolean and double precision. The schema is created by the
 * migrations in ./migrations, never by `synchronize`; a test checks that the
 * two agree.
 */
import { EntitySchema } from 'typeorm';
import { CLAW_SCHEDULER_ENTITIES } from './claw-scheduler-entities.js';
import { CLAW_CHILDREN_ENTITIES } from './claw-children-entities.js';
import { CLAW_CHANNEL_ENTITIES } from './claw-channel-entities.js';
import { CLAW_SKILLS_ENTITIES } from './claw-skills-entities.js';
import { CLAW_RUNS_ENTITIES } from './claw-runs-entities.js';
import { CLAW_TODOS_ENTITIES } from './claw-todos-entities.js';
import { CLAW_APPROVALS_ENTITIES } from './claw-approvals-entities.js';
import { bigintNumber } from './columns.js';

export { bigintNumber } from './columns.js';

/** The longest group name the config accepts (ClawGroupNameSchema) and a UUID. */
const GROUP_NAME_CHARS = 64;
const UUID_CHARS = 36;

export interface ClawGroupRow {
  name: string;
  activeSessionId: string | null;
  revision: number;
  createdAt: number;
}

export const ClawGroupEntity = new EntitySchema<ClawGroupRow>({
  name: 'ClawGroup',
  tableName: 'claw_groups',
  columns: {
    name: { type: 'varchar', length: GROUP_NAME_CHARS, primary: true },
    activeSessionId: { name: 'active_session_id', type: 'varchar', length: UUID_CHARS, nullable: true },
    revision: { type: 'integer' },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintNumber },
  },
  foreignKeys: [{ target: 'ClawSession', columnNames: ['active_session_id'], referencedColumnNames: ['id'], name: 'fk_claw_groups_active_session' }],
});

export interface ClawSessionRow {
  id: string;
  groupName: string;
  name: string | null;
  /** `name` folded to lower case in JavaScript, so search is case-insensitive the same way on every database. */
  nameFolded: string | null;
  summary: string | null;
  summaryFolded: string | null;
  parentSessionId: string | null;
  forkEntryId: number | null;
  leafEntryId: number | null;
  archived: boolean;
  messageCount: number;
  createdAt: number;
  updatedAt: number;
}

export const ClawSessionEntity = new EntitySchema<ClawSessionRow>({
  name: 'ClawSession',
  tableName: 'claw_sessions',
  columns: {
    id: { type: 'varchar', length: UUID_CHARS, primary: true },
    groupName: { name: 'group_name', type: 'varchar', length: GROUP_NAME_CHARS },
    name: { type: 'text', nullable: true },
    nameFolded: { name: 'name_folded', type: 'text', nullable: true },
    summary: { type: 'text', nullable: true },
    summaryFolded: { name: 'summary_folded', type: 'text', nullable: true },
    parentSessionId: { name: 'parent_session_id', type: 'varchar', length: UUID_CHARS, nullable: true },
    forkEntryId: { name: 'fork_entry_id', type: 'integer', nullable: true },
    leafEntryId: { name: 'leaf_entry_id', type: 'integer', nullable: true },
    archived: { type: 'boolean' },
    messageCount: { name: 'message_count', type: 'integer' },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintNumber },
    updatedAt: { name: 'updated_at', type: 'bigint', transformer: bigintNumber },
  },
  indices: [{ name: 'idx_claw_sessions_group_updated', columns: ['groupName', 'archived', 'updatedAt'] }],
  foreignKeys: [
    { target: 'ClawGroup', columnNames: ['group_name'], referencedColumnNames: ['name'], name: 'fk_claw_sessions_group' },
    { target: 'ClawSession', columnNames: ['parent_session_id'], referencedColumnNames: ['id'], name: 'fk_claw_sessions_parent' },
    { target: 'ClawEntry', columnNames: ['fork_entry_id'], referencedColumnNames: ['id'], name: 'fk_claw_sessions_fork_entry' },
    { target: 'ClawEntry', columnNames: ['leaf_entry_id'], referencedColumnNames: ['id'], name: 'fk_claw_sessions_leaf_entry' },
  ],
});

export interface ClawEntryRow {
  id: number;
  sessionId: string;
  parentId: number | null;
  kind: string;
  /** The entry's payload as JSON text. */
  payload: string;
  createdAt: number;
}

export const ClawEntryEntity = new EntitySchema<ClawEntryRow>({
  name: 'ClawEntry',
  tableName: 'claw_entries',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment' },
    sessionId: { name: 'session_id', type: 'varchar', length: UUID_CHARS },
    parentId: { name: 'parent_id', type: 'integer', nullable: true },
    kind: { type: 'varchar', length: 32 },
    payload: { type: 'text' },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintNumber },
  },
  indices: [
    { name: 'idx_claw_entries_session', columns: ['sessionId', 'id'] },
    { name: 'idx_claw_entries_parent', columns: ['parentId'] },
  ],
  foreignKeys: [
    { target: 'ClawSession', columnNames: ['session_id'], referencedColumnNames: ['id'], name: 'fk_claw_entries_session' },
    { target: 'ClawEntry', columnNames: ['parent_id'], referencedColumnNames: ['id'], name: 'fk_claw_entries_parent' },
  ],
});

export interface ClawSessionStateRow {
  sessionId: string;
  model: string;
  thinking: string | null;
  /** JSON array of skill slugs. */
  skills: string;
  /** JSON, or null when no plan state exists. */
  plan: string | null;
  /** JSON object by extension id. */
  extensionEntries: string;
}

export const ClawSessionStateEntity = new EntitySchema<ClawSessionStateRow>({
  name: 'ClawSessionState',
  tableName: 'claw_session_state',
  columns: {
    sessionId: { name: 'session_id', type: 'varchar', length: UUID_CHARS, primary: true },
    model: { type: 'text' },
    thinking: { type: 'varchar', length: 32, nullable: true },
    skills: { type: 'text' },
    plan: { type: 'text', nullable: true },
    extensionEntries: { name: 'extension_entries', type: 'text' },
  },
  foreignKeys: [{ target: 'ClawSession', columnNames: ['session_id'], referencedColumnNames: ['id'], name: 'fk_claw_session_state_session' }],
});

export interface ClawUsageRow {
  id: number;
  groupName: string;
  sessionId: string | null;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** US dollars; null when the catalog knows no price. */
  cost: number | null;
  durationMs: number;
  createdAt: number;
}

export const ClawUsageEntity = new EntitySchema<ClawUsageRow>({
  name: 'ClawUsage',
  tableName: 'claw_usage',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment' },
    groupName: { name: 'group_name', type: 'varchar', length: GROUP_NAME_CHARS },
    sessionId: { name: 'session_id', type: 'varchar', length: UUID_CHARS, nullable: true },
    model: { type: 'text' },
    inputTokens: { name: 'input_tokens', type: 'bigint', transformer: bigintNumber },
    outputTokens: { name: 'output_tokens', type: 'bigint', transformer: bigintNumber },
    cacheReadTokens: { name: 'cache_read_tokens', type: 'bigint', transformer: bigintNumber },
    cacheWriteTokens: { name: 'cache_write_tokens', type: 'bigint', transformer: bigintNumber },
    cost: { type: 'double precision', nullable: true },
    durationMs: { name: 'duration_ms', type: 'bigint', transformer: bigintNumber },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintNumber },
  },
  indices: [
    { name: 'idx_claw_usage_group_time', columns: ['groupName', 'createdAt'] },
    { name: 'idx_claw_usage_session', columns: ['sessionId'] },
  ],
  foreignKeys: [
    { target: 'ClawGroup', columnNames: ['group_name'], referencedColumnNames: ['name'], name: 'fk_claw_usage_group' },
    { target: 'ClawSession', columnNames: ['session_id'], referencedColumnNames: ['id'], name: 'fk_claw_usage_session' },
  ],
});

export interface ClawInputKeyRow {
  groupName: string;
  inputKey: string;
  sessionId: string;
  createdAt: number;
}

export const ClawInputKeyEntity = new EntitySchema<ClawInputKeyRow>({
  name: 'ClawInputKey',
  tableName: 'claw_input_keys',
  columns: {
    groupName: { name: 'group_name', type: 'varchar', length: GROUP_NAME_CHARS, primary: true },
    inputKey: { name: 'input_key', type: 'varchar', length: 128, primary: true },
    sessionId: { name: 'session_id', type: 'varchar', length: UUID_CHARS },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintNumber },
  },
  foreignKeys: [
    { target: 'ClawGroup', columnNames: ['group_name'], referencedColumnNames: ['name'], name: 'fk_claw_input_keys_group' },
    { target: 'ClawSession', columnNames: ['session_id'], referencedColumnNames: ['id'], name: 'fk_claw_input_keys_session' },
  ],
});

export interface ClawGroupLeaseRow {
  groupName: string;
  ownerId: string;
  pid: number;
  host: string;
  info: string;
  expiresAt: number;
}

export const ClawGroupLeaseEntity = new EntitySchema<ClawGroupLeaseRow>({
  name: 'ClawGroupLease',
  tableName: 'claw_group_leases',
  columns: {
    groupName: { name: 'group_name', type: 'varchar', length: GROUP_NAME_CHARS, primary: true },
    ownerId: { name: 'owner_id', type: 'varchar', length: 128 },
    pid: { type: 'integer' },
    host: { type: 'text' },
    info: { type: 'text' },
    expiresAt: { name: 'expires_at', type: 'bigint', transformer: bigintNumber },
  },
  indices: [{ name: 'idx_claw_group_leases_owner', columns: ['ownerId'] }],
  foreignKeys: [{ target: 'ClawGroup', columnNames: ['group_name'], referencedColumnNames: ['name'], name: 'fk_claw_group_leases_group' }],
});

export interface ClawAccessScopeRow {
  groupName: string;
  /** 'full' or 'read-only'; anything else is corrupt and read as fail-closed. */
  mode: string;
  revision: number;
  changedAt: number;
}

/** A group's access scope (the read-only switch), owned by the host; no row means full access. */
export const ClawAccessScopeEntity = new EntitySchema<ClawAccessScopeRow>({
  name: 'ClawAccessScope',
  tableName: 'claw_access_scopes',
  columns: {
    groupName: { name: 'group_name', type: 'varchar', length: GROUP_NAME_CHARS, primary: true },
    mode: { type: 'varchar', length: 16 },
    revision: { type: 'integer' },
    changedAt: { name: 'changed_at', type: 'bigint', transformer: bigintNumber },
  },
  foreignKeys: [{ target: 'ClawGroup', columnNames: ['group_name'], referencedColumnNames: ['name'], name: 'fk_claw_access_scopes_group' }],
});

export interface ClawMemoryRow {
  id: number;
  groupName: string;
  text: string;
  /** Space-separated tags (each a word of letters, digits, "-" or "_"); empty when none. */
  tags: string;
  /** The session whose tool call wrote it; null when a person added it (CLI or gateway method). */
  sessionId: string | null;
  /** Who wrote it: "tool" (a model's memory_write) or "user". */
  source: string;
  createdAt: number;
}

/**
 * A group's durable memory. The full-text index beside it is per database:
 * on SQLite an FTS5 table the migration keeps in sync with triggers (see
 * migrations/1764892800000-claw-memories.ts); other databases index the text their own way.
 */
export const ClawMemoryEntity = new EntitySchema<ClawMemoryRow>({
  name: 'ClawMemory',
  tableName: 'claw_memories',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment' },
    groupName: { name: 'group_name', type: 'varchar', length: GROUP_NAME_CHARS },
    text: { type: 'text' },
    tags: { type: 'text' },
    // No foreign key: memories outlive the sessions that wrote them.
    sessionId: { name: 'session_id', type: 'varchar', length: UUID_CHARS, nullable: true },
    source: { type: 'varchar', length: 16 },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintNumber },
  },
  indices: [{ name: 'idx_claw_memories_group', columns: ['groupName', 'id'] }],
  foreignKeys: [{ target: 'ClawGroup', columnNames: ['group_name'], referencedColumnNames: ['name'], name: 'fk_claw_memories_group' }],
});

/** Every claw entity, for the DataSource. */
export const CLAW_ENTITIES = [
  ClawGroupEntity,
  ClawSessionEntity,
  ClawEntryEntity,
  ClawSessionStateEntity,
  ClawUsageEntity,
  ClawInputKeyEntity,
  ClawGroupLeaseEntity,
  ...CLAW_SCHEDULER_ENTITIES,
  ClawAccessScopeEntity,
  ClawMemoryEntity,
  ...CLAW_CHILDREN_ENTITIES,
  ...CLAW_CHANNEL_ENTITIES,
  ...CLAW_SKILLS_ENTITIES,
  ...CLAW_RUNS_ENTITIES,
  ...CLAW_TODOS_ENTITIES,
  ...CLAW_APPROVALS_ENTITIES,
];
