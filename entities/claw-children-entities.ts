/**
 * Durable child agents of a claw group (plugins/children). A child's row is
 * committed before it starts; each input is journaled before the caller is
 * told it was accepted and marked consumed before the next model call; the
 * final transcript is stored in chunks (no size cap); the complete history
 * before each compaction is archived (claw_child_compaction_archives). After a crash a
 * "running" child is marked interrupted, never re-run, and its accepted but
 * unconsumed inputs become "uncertain".
 */
import { EntitySchema } from 'typeorm';
import { bigintNumber } from './columns.js';

const GROUP_NAME_CHARS = 64;
const UUID_CHARS = 36;
const CHILD_ID_CHARS = 64;

export interface ClawChildRow {
  id: string;
  groupName: string;
  /** The session whose run spawned it; null when a client started it directly. */
  parentSessionId: string | null;
  label: string | null;
  task: string;
  /** "read-only" or "inherit". */
  access: string;
  /** The resolved ChildSpec (caps, model, tools) as JSON. */
  config: string;
  /** running, completed, failed, cancelled, timeout, limit, interrupted. */
  status: string;
  result: string | null;
  error: string | null;
  modelCalls: number;
  tokens: number;
  /** Chunks of the final transcript (claw_child_transcript_chunks). */
  transcriptChunks: number;
  createdAt: number;
  endedAt: number | null;
  /** The task's images as JSON image parts, and how many (null: none; rows of an older store). */
  taskImages: string | null;
  taskImageCount: number | null;
}

export const ClawChildEntity = new EntitySchema<ClawChildRow>({
  name: 'ClawChild',
  tableName: 'claw_children',
  columns: {
    id: { type: 'varchar', length: CHILD_ID_CHARS, primary: true },
    groupName: { name: 'group_name', type: 'varchar', length: GROUP_NAME_CHARS },
    parentSessionId: { name: 'parent_session_id', type: 'varchar', length: UUID_CHARS, nullable: true },
    label: { type: 'varchar', length: 64, nullable: true },
    task: { type: 'text' },
    access: { type: 'varchar', length: 16 },
    config: { type: 'text' },
    status: { type: 'varchar', length: 16 },
    result: { type: 'text', nullable: true },
    error: { type: 'text', nullable: true },
    modelCalls: { name: 'model_calls', type: 'integer' },
    tokens: { type: 'bigint', transformer: bigintNumber },
    transcriptChunks: { name: 'transcript_chunks', type: 'integer' },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintNumber },
    endedAt: { name: 'ended_at', type: 'bigint', nullable: true, transformer: bigintNumber },
    taskImages: { name: 'task_images', type: 'text', nullable: true },
    taskImageCount: { name: 'task_image_count', type: 'integer', nullable: true },
  },
  indices: [
    { name: 'idx_claw_children_group', columns: ['groupName', 'createdAt'] },
    { name: 'idx_claw_children_status', columns: ['status'] },
  ],
  foreignKeys: [{ target: 'ClawGroup', columnNames: ['group_name'], referencedColumnNames: ['name'], name: 'fk_claw_children_group' }],
});

export interface ClawChildInputRow {
  id: number;
  childId: string;
  /** "steer" or "followUp". */
  lane: string;
  text: string;
  /** "accepted" (journaled, not yet given to the model), "consumed", or "uncertain" (accepted before a crash). */
  status: string;
  createdAt: number;
  consumedAt: number | null;
  /** The order within the child's lane (a client may move an input); null only on rows of a store older than moves. */
  position: number | null;
  /** The input's images as JSON image parts, and how many (null: none). */
  images: string | null;
  imageCount: number | null;
}

export const ClawChildInputEntity = new EntitySchema<ClawChildInputRow>({
  name: 'ClawChildInput',
  tableName: 'claw_child_inputs',
  columns: {
    id: { type: 'integer', primary: true, generated: 'increment' },
    childId: { name: 'child_id', type: 'varchar', length: CHILD_ID_CHARS },
    lane: { type: 'varchar', length: 16 },
    text: { type: 'text' },
    status: { type: 'varchar', length: 16 },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintNumber },
    consumedAt: { name: 'consumed_at', type: 'bigint', nullable: true, transformer: bigintNumber },
    position: { type: 'integer', nullable: true },
    images: { type: 'text', nullable: true },
    imageCount: { name: 'image_count', type: 'integer', nullable: true },
  },
  indices: [{ name: 'idx_claw_child_inputs_child', columns: ['childId', 'id'] }],
  foreignKeys: [{ target: 'ClawChild', columnNames: ['child_id'], referencedColumnNames: ['id'], name: 'fk_claw_child_inputs_child', onDelete: 'CASCADE' }],
});

export interface ClawChildTranscriptChunkRow {
  childId: string;
  seq: number;
  /** A slice of the transcript's JSON (messages), in order of seq. */
  body: string;
}

export const ClawChildTranscriptChunkEntity = new EntitySchema<ClawChildTranscriptChunkRow>({
  name: 'ClawChildTranscriptChunk',
  tableName: 'claw_child_transcript_chunks',
  columns: {
    childId: { name: 'child_id', type: 'varchar', length: CHILD_ID_CHARS, primary: true },
    seq: { type: 'integer', primary: true },
    body: { type: 'text' },
  },
  foreignKeys: [{ target: 'ClawChild', columnNames: ['child_id'], referencedColumnNames: ['id'], name: 'fk_claw_child_transcript_child', onDelete: 'CASCADE' }],
});

export interface ClawChildUsageRow {
  /** The usage ledger row (claw_usage) this child's model call wrote. */
  usageId: number;
  childId: string;
}

/** Attributes usage ledger rows to the child that spent them. */
export const ClawChildUsageEntity = new EntitySchema<ClawChildUsageRow>({
  name: 'ClawChildUsage',
  tableName: 'claw_child_usage',
  columns: {
    usageId: { name: 'usage_id', type: 'integer', primary: true },
    childId: { name: 'child_id', type: 'varchar', length: CHILD_ID_CHARS },
  },
  indices: [{ name: 'idx_claw_child_usage_child', columns: ['childId'] }],
  foreignKeys: [
    { target: 'ClawUsage', columnNames: ['usage_id'], referencedColumnNames: ['id'], name: 'fk_claw_child_usage_usage' },
    { target: 'ClawChild', columnNames: ['child_id'], referencedColumnNames: ['id'], name: 'fk_claw_child_usage_child' },
  ],
});

export interface ClawChildCompactionArchiveRow {
  childId: string;
  /** The number of the compaction it preceded (1 for the first); a failed compaction's retry replaces its archive. */
  generation: number;
  /** The complete history before that compaction, as JSON (messages), at most LIMITS.childCompactionArchiveBytes. */
  messages: string;
  messageCount: number;
  /** UTF-8 bytes of `messages`. */
  bytes: number;
  createdAt: number;
}

/** A child's complete history saved before each of its compactions (before the summary request). */
export const ClawChildCompactionArchiveEntity = new EntitySchema<ClawChildCompactionArchiveRow>({
  name: 'ClawChildCompactionArchive',
  tableName: 'claw_child_compaction_archives',
  columns: {
    childId: { name: 'child_id', type: 'varchar', length: CHILD_ID_CHARS, primary: true },
    generation: { type: 'integer', primary: true },
    messages: { type: 'text' },
    messageCount: { name: 'message_count', type: 'integer' },
    bytes: { type: 'integer' },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintNumber },
  },
  foreignKeys: [{ target: 'ClawChild', columnNames: ['child_id'], referencedColumnNames: ['id'], name: 'fk_claw_child_archives_child', onDelete: 'CASCADE' }],
});

export const CLAW_CHILDREN_ENTITIES = [ClawChildEntity, ClawChildInputEntity, ClawChildTranscriptChunkEntity, ClawChildUsageEntity, ClawChildCompactionArchiveEntity];
