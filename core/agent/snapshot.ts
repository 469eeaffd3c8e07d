/**
 * Snapshots: versioned JSON of one agent's conversation state. A whole
 * snapshot is one bounded document; a split snapshot is metadata plus
 * message fragments, each bounded, for histories of any length. Restoring
 * validates everything first (schema, pairing, allowed model, digest) and
 * adopts nothing on failure. Saved model ids are not authority: the host
 * names the models it allows.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ErrorCodes, XdogError } from '../errors.js';
import { LIMITS } from '../limits.js';
import { MessageSchema, UsageSchema, type Message, type Usage } from './messages.js';
import { findPairingProblem, unansweredCalls } from './transcript.js';
import { summaryFromMessage } from './compaction.js';
import type { CompactionState } from './types.js';

export const SNAPSHOT_VERSION = 1;

/** One active skill as saved: its slug and the SHA-256 of the body it had (the body itself is not saved). */
const SkillBindingSchema = z.object({ slug: z.string().min(1), sha256: z.string().regex(/^[0-9a-f]{64}$/) }).strict();
/** The saved skill lifecycle: session skills, and turn skills still pending (a running turn's are consumed, so not saved). */
export const SkillBindingsSchema = z
  .object({ session: z.array(SkillBindingSchema).max(LIMITS.activeSkills), pending: z.array(SkillBindingSchema).max(LIMITS.activeSkills) })
  .strict();
/** Skill bindings in a snapshot (present when the agent has a skill index). */
export type SkillBindings = z.infer<typeof SkillBindingsSchema>;

/** The compaction state: the summary message 0 carries, its details and how many compactions there were. */
const CompactionStateSchema = z.object({ summary: z.string().min(1), details: z.unknown().optional(), count: z.number().int().positive() }).strict();

const StateFields = {
  version: z.literal(SNAPSHOT_VERSION),
  model: z.string().min(1),
  systemPrompt: z.string().optional(),
  thinking: z.string().optional(),
  usage: UsageSchema,
  skills: SkillBindingsSchema.optional(),
  compaction: CompactionStateSchema.optional(),
};

/** A whole snapshot: the state plus every message. */
export const AgentSnapshotSchema = z.object({ kind: z.literal('xdog.agent.snapshot'), ...StateFields, messages: z.array(MessageSchema) }).strict();
/** The metadata half of a split snapshot; `messagesSha256` binds it to its messages. */
export const SnapshotMetadataSchema = z
  .object({
    kind: z.literal('xdog.agent.metadata'),
    ...StateFields,
    messageCount: z.number().int().nonnegative(),
    messagesSha256: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();

/** A whole snapshot (`agent.dump()`). */
export type AgentSnapshot = z.infer<typeof AgentSnapshotSchema>;
/** Split-snapshot metadata (`agent.dumpMetadata()`). */
export type SnapshotMetadata = z.infer<typeof SnapshotMetadataSchema>;

/** The state a snapshot captures. */
export interface SnapshotState {
  model: string;
  systemPrompt?: string;
  thinking?: string;
  usage: Usage;
  messages: readonly Message[];
  skills?: SkillBindings;
  compaction?: CompactionState;
}

/** Options of `restore()` and `restoreParts()`. */
export interface RestoreOptions {
  /** Models the host accepts; default: only the agent's configured model. */
  allowedModels?: readonly string[];
  /**
   * Accept a history whose last assistant message has calls without results
   * (a run that waited for an approval when its process stopped); the next
   * `prompt([])` runs those calls before it calls the model again.
   */
  pendingToolCalls?: boolean;
}

function invalid(message: string, hint = 'restore from an intact snapshot; the agent was left unchanged'): XdogError {
  return new XdogError(ErrorCodes.SNAPSHOT_INVALID, message, { hint });
}

function stateFields(state: SnapshotState) {
  return {
    version: SNAPSHOT_VERSION,
    model: state.model,
    ...(state.systemPrompt === undefined ? {} : { systemPrompt: state.systemPrompt }),
    ...(state.thinking === undefined ? {} : { thinking: state.thinking }),
    usage: { ...state.usage },
    ...(state.skills === undefined ? {} : { skills: structuredClone(state.skills) }),
    ...(state.compaction === undefined ? {} : { compaction: structuredClone(state.compaction) }),
  } as const;
}

/** Builds a whole snapshot; fails when it would exceed LIMITS.snapshotBytes. */
export function buildSnapshot(state: SnapshotState): AgentSnapshot {
  const snapshot: AgentSnapshot = { kind: 'xdog.agent.snapshot', ...stateFields(state), messages: structuredClone([...state.messages]) };
  const bytes = Buffer.byteLength(JSON.stringify(snapshot));
  if (bytes > LIMITS.snapshotBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the snapshot is ${bytes} bytes, over the limit of ${LIMITS.snapshotBytes}`, {
      hint: 'save dumpMetadata() plus encodeSnapshotMessages(agent.messages) instead',
    });
  }
  return snapshot;
}

/** Builds split-snapshot metadata for `state`. */
export function buildMetadata(state: SnapshotState): SnapshotMetadata {
  return { kind: 'xdog.agent.metadata', ...stateFields(state), messageCount: state.messages.length, messagesSha256: messagesDigest(state.messages) };
}

/** JSON with sorted keys, so a digest does not depend on key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256 of the canonical JSON of a message list. */
export function messagesDigest(messages: readonly Message[]): string {
  return createHash('sha256').update(canonicalJson(messages)).digest('hex');
}

function checkModel(model: string, options: RestoreOptions, fallback: string): void {
  const allowed = options.allowedModels ?? [fallback];
  if (!allowed.includes(model)) {
    throw invalid(`the snapshot's model "${model}" is not among the allowed models (${allowed.join(', ') || 'none'})`, 'pass allowedModels including it if you trust that model');
  }
}

function checkMessages(messages: readonly Message[], compaction: CompactionState | undefined, pendingToolCalls = false): void {
  // Pending calls are checked as if answered: everything before them must pair up.
  const pending = pendingToolCalls ? unansweredCalls(messages) : [];
  const answered = pending.map((call): Message => ({ role: 'toolResult', toolCallId: call.id, toolName: call.name, content: [], isError: true, timestamp: 0 }));
  const problem = findPairingProblem(answered.length ? [...messages, ...answered] : messages);
  if (problem) throw invalid(`the snapshot's messages are not well formed: ${problem}`);
  // The compaction state and the summary message must agree, or a restore would mix two histories.
  const carried = summaryFromMessage(messages[0]);
  if (compaction && carried !== compaction.summary) throw invalid("the snapshot's compaction summary does not match its first message");
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/** Validates a whole snapshot (any JSON value, or its text) for restoring. */
export function parseSnapshot(value: unknown, options: RestoreOptions, currentModel: string): AgentSnapshot {
  if (typeof value === 'string') {
    assertSize('snapshot', value, LIMITS.snapshotBytes);
    value = parseJson(value, 'snapshot');
  }
  const parsed = AgentSnapshotSchema.safeParse(value);
  if (!parsed.success) throw invalid(`the snapshot is invalid: ${describeIssues(parsed.error)}`);
  checkModel(parsed.data.model, options, currentModel);
  checkMessages(parsed.data.messages, parsed.data.compaction);
  return parsed.data;
}

/** Validates split-snapshot parts: metadata, then messages against its count and digest. */
export function parseParts(
  metadata: unknown,
  messages: readonly unknown[],
  options: RestoreOptions,
  currentModel: string,
): { metadata: SnapshotMetadata; messages: Message[] } {
  const meta = SnapshotMetadataSchema.safeParse(typeof metadata === 'string' ? parseJson(metadata, 'snapshot metadata') : metadata);
  if (!meta.success) throw invalid(`the snapshot metadata is invalid: ${describeIssues(meta.error)}`);
  const parsed = z.array(MessageSchema).safeParse(messages);
  if (!parsed.success) throw invalid(`the snapshot messages are invalid: ${describeIssues(parsed.error)}`);
  if (parsed.data.length !== meta.data.messageCount) {
    throw invalid(`the metadata names ${meta.data.messageCount} messages but ${parsed.data.length} were given`);
  }
  if (messagesDigest(parsed.data) !== meta.data.messagesSha256) {
    throw invalid('the messages do not match the metadata digest (a fragment is missing, extra or changed)');
  }
  checkModel(meta.data.model, options, currentModel);
  checkMessages(parsed.data, meta.data.compaction, options.pendingToolCalls);
  return { metadata: meta.data, messages: parsed.data };
}

/**
 * Encodes messages as JSON fragments of at most LIMITS.snapshotFragmentBytes
 * each (a JSON array per fragment). One message over that bound fails.
 */
export function encodeSnapshotMessages(messages: readonly Message[]): string[] {
  const fragments: string[] = [];
  let current: string[] = [];
  let size = 2;
  for (const message of messages) {
    const json = JSON.stringify(message);
    const bytes = Buffer.byteLength(json) + 1;
    if (bytes + 2 > LIMITS.snapshotFragmentBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `one message is ${bytes} bytes of JSON, over the fragment limit of ${LIMITS.snapshotFragmentBytes}`, {
        hint: 'shrink that message (for example a large image) before saving',
      });
    }
    if (size + bytes > LIMITS.snapshotFragmentBytes) {
      fragments.push(`[${current.join(',')}]`);
      current = [];
      size = 2;
    }
    current.push(json);
    size += bytes;
  }
  if (current.length || fragments.length === 0) fragments.push(`[${current.join(',')}]`);
  return fragments;
}

/** Decodes fragments from `encodeSnapshotMessages`, in order; each is bounded and must be a JSON array. */
export function decodeSnapshotMessages(fragments: readonly string[]): unknown[] {
  const messages: unknown[] = [];
  fragments.forEach((fragment, index) => {
    assertSize(`snapshot fragment ${index}`, fragment, LIMITS.snapshotFragmentBytes);
    const value = parseJson(fragment, `snapshot fragment ${index}`);
    if (!Array.isArray(value)) throw invalid(`snapshot fragment ${index} is not a JSON array`);
    messages.push(...value);
  });
  return messages;
}

function assertSize(what: string, text: string, limit: number): void {
  const bytes = Buffer.byteLength(text);
  if (bytes > limit) throw invalid(`the ${what} is ${bytes} bytes, over the limit of ${limit}`);
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalid(`the ${what} is not valid JSON: ${(error as Error).message}`);
  }
}
