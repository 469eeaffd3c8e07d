/**
 * The claw gateway protocol, version 1: JSON-RPC 2.0 over a Unix socket, one
 * message per line (docs/protocol.md). Every method's params are validated by
 * the schema here; clients import the same types. Capabilities are feature
 * flags with a version, sent in the `hello` answer; a client sends only the
 * methods the gateway listed there.
 */
import { z } from 'zod';
import { ClawGroupNameSchema } from '../../core/config.js';
import { ImageContentSchema } from '../../core/agent/messages.js';
import { LIMITS } from '../../core/limits.js';
import { textWithin } from '../../core/text-limit.js';
import type { SnapshotChunk } from '../../core/rpc/index.js';
import type { UsageDimension } from '../sessions/index.js';

export { ClientFeatures, Notifications, PROTOCOL_VERSION } from './protocol-names.js';

/** Feature flags the gateway advertises (`name:version`). */
export const CAPABILITIES = ['session-control:1', 'input-control:1', 'session_rename:1', 'session_name_read:1', 'transcript:1', 'usage:1', 'compact:1', 'compact-cancel:1', 'workers:1', 'notification-parts:1', 'trace-context:1', 'models:1', 'tools:1', 'workspace-diff:1', 'upload:1'] as const;

const Group = ClawGroupNameSchema.optional().describe('the group; default: claw.default_group');
const SessionId = z.string().uuid();
/** The active session the client saw; a different current one is refused with STALE. `null` when it saw none. */
const Expected = z.string().uuid().nullable();
const InputText = textWithin(LIMITS.clawInputBytes);
const Checkpoint = z.number().int().positive();
/** An input's image: inline base64, or an upload this connection finished (`upload:1`). */
export const InputImagesSchema = z.array(z.union([ImageContentSchema, z.object({ type: z.literal('image'), uploadId: z.string().min(1).max(64) }).strict()])).max(4);
/** The caller's W3C trace context (`trace-context:1`): the run joins that trace. A malformed value starts a new trace. */
const TraceMeta = z.object({ traceparent: z.string().max(128).optional(), tracestate: z.string().max(512).optional() }).strict();

/**
 * What `usage.summary` sums by: the sessions plugin's list, spelled here so a
 * client loading the protocol does not load that plugin; the types keep the
 * two the same.
 */
const USAGE_BY = ['model', 'group', 'session', 'goal', 'child', 'schedule', 'mcp', 'origin'] as const satisfies readonly UsageDimension[];
const usageByIsComplete: Exclude<UsageDimension, (typeof USAGE_BY)[number]> extends never ? true : never = true;
void usageByIsComplete;

export const MethodParams = {
  'gateway.status': z.object({}).strict(),
  'group.list': z.object({}).strict(),
  'group.status': z.object({ group: Group }).strict(),

  prompt: z
    .object({
      group: Group,
      text: InputText,
      images: InputImagesSchema.optional(),
      /** A key the client makes up per prompt; a repeated key is acknowledged and never run twice. */
      idempotencyKey: textWithin(LIMITS.clawIdempotencyKeyBytes, { nonEmpty: true }),
      /** When given, the prompt is refused (STALE) unless this is still the active session. */
      expectedSessionId: SessionId.optional(),
      _meta: TraceMeta.optional(),
    })
    .strict(),
  steer: z.object({ group: Group, text: InputText, images: InputImagesSchema.optional(), expectedSessionId: SessionId.optional() }).strict(),
  follow_up: z.object({ group: Group, text: InputText, images: InputImagesSchema.optional(), expectedSessionId: SessionId.optional() }).strict(),
  /** Starts a chunked image upload owned by this connection (`upload:1`). */
  'upload.begin': z.object({ mimeType: z.enum(['image/png', 'image/jpeg', 'image/webp']), bytes: z.number().int().positive(), sha256: z.string().regex(/^[0-9a-fA-F]{64}$/) }).strict(),
  /** One chunk of an upload, at the offset of the bytes received so far (base64 of at most LIMITS.clawUploadChunkBytes). */
  'upload.chunk': z.object({ uploadId: z.string().min(1).max(64), offset: z.number().int().nonnegative(), data: z.string().min(1) }).strict(),
  'queue.list': z.object({ group: Group }).strict(),
  'queue.edit': z.object({ group: Group, id: z.string().min(1), text: InputText }).strict(),
  'queue.remove': z.object({ group: Group, id: z.string().min(1) }).strict(),
  'queue.move': z.object({ group: Group, id: z.string().min(1), direction: z.enum(['up', 'down']) }).strict(),
  abort: z.object({ group: Group }).strict(),

  subscribe: z.object({ group: Group, sessionId: SessionId.optional() }).strict(),
  unsubscribe: z.object({ subscriptionId: z.string().min(1) }).strict(),

  'session.new': z.object({ group: Group, expectedSessionId: Expected, name: z.string().optional() }).strict(),
  'session.resume': z.object({ group: Group, sessionId: SessionId, expectedSessionId: Expected }).strict(),
  'session.fork': z.object({ group: Group, index: Checkpoint, expectedSessionId: Expected }).strict(),
  'session.branch': z.object({ group: Group, entryId: z.number().int().positive(), expectedSessionId: Expected }).strict(),
  'session.goto': z.object({ group: Group, index: Checkpoint, expectedSessionId: Expected }).strict(),
  'session.name': z.object({ group: Group, sessionId: SessionId.optional(), name: z.string().nullable(), expectedSessionId: Expected }).strict(),
  'session.archive': z.object({ group: Group, sessionId: SessionId, expectedSessionId: Expected }).strict(),
  'session.list': z
    .object({ group: Group, includeArchived: z.boolean().optional(), limit: z.number().int().positive().max(LIMITS.clawSessionsPerPage).optional(), offset: z.number().int().nonnegative().optional() })
    .strict(),
  'session.search': z
    .object({ group: Group, query: textWithin(LIMITS.clawSearchQueryBytes, { nonEmpty: true }), includeArchived: z.boolean().optional(), limit: z.number().int().positive().max(LIMITS.clawSessionsPerPage).optional() })
    .strict(),
  'session.show': z.object({ group: Group, sessionId: SessionId.optional() }).strict(),
  /** One page of the session's tree, flat (entries with parent ids); `cursor` is the previous page's `nextCursor`. */
  'session.tree': z
    .object({ group: Group, sessionId: SessionId.optional(), cursor: z.number().int().nonnegative().optional(), limit: z.number().int().positive().max(LIMITS.clawTreeEntriesPerPage).optional() })
    .strict(),
  /** Compacts the active session (memory flush, summary, recovery branch); `focus` steers the summary. */
  'session.compact': z
    .object({
      group: Group,
      expectedSessionId: Expected,
      focus: textWithin(LIMITS.compactionInstructionsBytes).optional(),
    })
    .strict(),
  /** Cancels the group's running compaction (never a turn); `{cancelled: false}` when none runs (`compact-cancel:1`). */
  'compact.cancel': z.object({ group: Group }).strict(),
  /** Without `model`: reads it. With it: changes it (then `expectedSessionId` is required). */
  'session.model': z.object({ group: Group, model: z.string().min(1).optional(), expectedSessionId: Expected.optional() }).strict(),
  /** Without `thinking`: reads it. With it (null turns it off): changes it (then `expectedSessionId` is required). */
  'session.thinking': z.object({ group: Group, thinking: z.string().min(1).nullable().optional(), expectedSessionId: Expected.optional() }).strict(),

  /** The models the group's providers serve (for a model picker), with their thinking levels. */
  'models.list': z.object({ group: Group }).strict(),
  /** The tools the group's agent gets (name, description, parameters). */
  'tools.list': z.object({ group: Group }).strict(),
  /** The git changes of the group's workspace (changed files and the diff against HEAD). */
  'workspace.diff': z.object({ group: Group }).strict(),

  'transcript.read': z
    .object({
      group: Group,
      sessionId: SessionId.optional(),
      /** Byte offset into the JSONL transcript; 0 starts a read. */
      offset: z.number().int().nonnegative(),
      /** From the first chunk's answer: later chunks read the same, immutable, set of entries. */
      untilEntryId: z.number().int().nonnegative().optional(),
    })
    .strict(),

  'usage.summary': z.object({ group: Group, sessionId: SessionId.optional(), since: z.number().int().nonnegative().optional(), by: z.enum(USAGE_BY).optional() }).strict(),

  /** The gateway workers sharing the store, their groups and lease expiries (docs/protocol.md). */
  'workers.list': z.object({}).strict(),
} as const;

export type MethodName = keyof typeof MethodParams;
export type ParamsOf<M extends MethodName> = z.infer<(typeof MethodParams)[M]>;

export const METHOD_NAMES = Object.keys(MethodParams) as MethodName[];


/** What `prompt` answers: started now, queued behind the running turn, or a key seen before (not run again). */
export interface PromptReceipt {
  status: 'started' | 'queued' | 'duplicate';
  group: string;
  sessionId: string;
  /** The prompt's id: its queue entry while it waits, and the `inputId` of its run's events and `run.end`. Absent for a duplicate. */
  inputId?: string;
}

/** One pending input of a group. `prompt` items wait for the group; steer/followUp items wait for a checkpoint. */
export interface QueueItem {
  id: string;
  lane: 'prompt' | 'steer' | 'followUp';
  text: string;
  images: number;
  state: 'queued' | 'selected' | 'rejected';
}

/**
 * What `session.compact` answers: the compaction written (with the recovery
 * branch that restores the full history: `session.branch` to it), or why
 * nothing was done. A failed summary is an error, never a receipt.
 */
export type CompactionReceipt =
  | {
      status: 'compacted';
      sessionId: string;
      compactionEntryId: number;
      /** The label entry "Before compaction #N"; `session.branch` to it restores the complete original path. */
      recoveryBranchId: number;
      recoveryLabel: string;
      summary: string;
      /** True when a beforeCompact hook supplied the summary. */
      custom: boolean;
      messagesBefore: number;
      messagesAfter: number;
      tokensBefore: number;
      tokensAfter: number;
    }
  | { status: 'skipped'; sessionId: string; reason: 'too-small' | 'vetoed'; message: string };

export interface GroupStatus {
  name: string;
  workspace: string;
  model: string;
  activeSessionId: string | null;
  revision: number;
  busy: boolean;
  /** When the running turn started (epoch ms). */
  runStartedAt: number | null;
  queued: number;
  /** The OS sandbox of its tools, MCP servers and extensions, and where that came from (docs/sandbox.md). */
  sandbox?: string;
}

/** One gateway process holding groups of the store (a worker, or a gateway run without --worker). */
export interface WorkerInfo {
  /** The worker id; for a gateway without --worker, its lease owner id. */
  id: string;
  name: string;
  pid: number;
  host: string;
  /** Its socket, or what its leases say of it. */
  socket: string;
  /** Epoch ms; null for a gateway without --worker (it keeps no heartbeat). */
  startedAt: number | null;
  heartbeatAt: number | null;
  /** True while its heartbeat (or, without one, a lease) is fresh. */
  alive: boolean;
  groups: Array<{ group: string; expiresAt: number }>;
}

/** What `workers.list` answers. */
export interface WorkersReport {
  /** The answering worker's id (null when the answer comes from a gateway without --worker, or from the store directly). */
  self: string | null;
  leaseSeconds: number;
  workers: WorkerInfo[];
  /** Configured groups no live lease holds now (a worker takes them at its next round). */
  unowned: string[];
}

export interface GatewayStatus {
  /** Set when the gateway runs with --worker. */
  worker?: { id: string; name: string };
  pid: number;
  protocol: number;
  version: string;
  startedAt: number;
  store: string;
  socket: string;
  groups: GroupStatus[];
}

/** One chunk of a transcript read (JSONL of the session's entries, oldest first); `snapshot` is `untilEntryId` as text. */
export interface TranscriptChunk extends SnapshotChunk {
  sessionId: string;
  untilEntryId: number;
}
