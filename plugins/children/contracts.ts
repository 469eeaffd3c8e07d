/**
 * Child-agent contracts: inert data any host can use. The `agent` model
 * tool's arguments (one schema per action, strict, so a spawn-only field in
 * a control action is refused), a child's config with its caps (which a
 * spawn may lower, never raise), and preset resolution. Hosts own execution,
 * storage and grants; nothing here starts anything.
 */
import { z } from 'zod';
import { ErrorCodes, LIMITS, XdogError, estimateMessageTokens, textWithin, type Message } from '../../core/index.js';
import { TODO_TOOL_NAMES, type TodoItem } from '../todos/index.js';

const text = textWithin(LIMITS.childInputBytes, { nonEmpty: true });

/** A child's settings (snake_case, as the model and config files write them). */
export const ChildConfigSchema = z
  .object({
    label: textWithin(64, { nonEmpty: true }).optional(),
    instructions: text.optional(),
    /** Tool names from the parent's; [] is none. Never more than the parent has. */
    tools: z.array(z.string().min(1)).max(64).optional(),
    model: z.string().min(1).optional(),
    thinking: z.string().min(1).optional(),
    /** Seconds; at most LIMITS.childTimeoutSeconds. */
    timeout: z.number().positive().optional(),
    max_model_calls: z.number().int().positive().optional(),
    max_tokens: z.number().int().positive().optional(),
    preset: z.string().min(1).optional(),
    /** Start from a copy of the parent's conversation (false: fresh, from the task alone). */
    inherit_context: z.boolean().optional(),
  })
  .strict();

export type ChildConfig = z.infer<typeof ChildConfigSchema>;

const id = textWithin(64, { nonEmpty: true });

/** The `agent` tool's arguments. */
export const AgentToolArgsSchema = z.discriminatedUnion('action', [
  z
    .object({
      action: z.literal('spawn'),
      task: text,
      /** read-only (default): only read, ls, grep, find, current_time; inherit: the parent's current gates. */
      access: z.enum(['read-only', 'inherit']).optional(),
      inherit_context: z.boolean().optional(),
      /** Start with a copy of the parent's todo list (its own, in memory: the parent's does not change). */
      inherit_todos: z.boolean().optional(),
      config: ChildConfigSchema.optional(),
    })
    .strict(),
  z.object({ action: z.literal('list') }).strict(),
  z.object({ action: z.literal('presets') }).strict(),
  z.object({ action: z.literal('inspect'), id }).strict(),
  z.object({ action: z.literal('steer'), id, text }).strict(),
  z.object({ action: z.literal('follow-up'), id, text }).strict(),
  z.object({ action: z.literal('cancel'), id }).strict(),
  z.object({ action: z.literal('wait'), ids: z.array(id).min(1).max(LIMITS.childRetained).optional() }).strict(),
  z.object({ action: z.literal('close'), id }).strict(),
  z.object({ action: z.literal('queue'), id }).strict(),
]);

export type AgentToolArgs = z.infer<typeof AgentToolArgsSchema>;

/** What a spawn asks for, after presets and caps. */
export interface ChildSpec {
  task: string;
  access: 'read-only' | 'inherit';
  inheritContext: boolean;
  inheritTodos?: boolean;
  /** The parent's todo list at the spawn (set by the host when inheritTodos; the child keeps its own copy). */
  todos?: TodoItem[];
  label: string | undefined;
  instructions: string | undefined;
  tools: string[] | undefined;
  model: string | undefined;
  thinking: string | undefined;
  timeoutSeconds: number;
  maxModelCalls: number;
  maxTokens: number;
}

/** A named set of child settings from `child_presets`. */
export type ChildPresets = Readonly<Record<string, ChildConfig>>;

/** Validates a `child_presets` catalog: ≤ 32 entries, ≤ 256 KiB; an invalid one fails whole, never partly used. */
export function parseChildPresets(catalog: unknown): ChildPresets {
  if (catalog === undefined || catalog === null) return {};
  const hint = 'fix child_presets in the config file; no child starts from a preset while the catalog is invalid';
  const size = Buffer.byteLength(JSON.stringify(catalog), 'utf8');
  if (size > LIMITS.childPresetsBytes) throw new XdogError(ErrorCodes.CONFIG_INVALID, `child_presets is ${size} bytes, over the limit of ${LIMITS.childPresetsBytes}`, { hint });
  const parsed = z.record(z.string().min(1).max(64), ChildConfigSchema.omit({ preset: true })).safeParse(catalog);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new XdogError(ErrorCodes.CONFIG_INVALID, `child_presets${issue.path.map((key) => `.${String(key)}`).join('')}: ${issue.message}`, { hint });
  }
  const count = Object.keys(parsed.data).length;
  if (count > LIMITS.childPresets) throw new XdogError(ErrorCodes.CONFIG_INVALID, `child_presets has ${count} entries, over the limit of ${LIMITS.childPresets}`, { hint });
  return parsed.data;
}

/**
 * The part of a parent's conversation a child inheriting it starts with: a
 * copy of every message up to the last point where each tool call has its
 * result (the spawning call itself is still open, so it and its batch stay
 * out). Refused, never clipped, when it is over LIMITS.childContextTokens or
 * half the child's token cap: the child would spend its budget rereading it.
 */
export function inheritedContext(messages: readonly Message[], spec: Pick<ChildSpec, 'maxTokens'>): Message[] {
  let complete = 0;
  const open = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === 'assistant') for (const part of message.content) if (part.type === 'toolCall') open.add(part.id);
    if (message.role === 'toolResult') open.delete(message.toolCallId);
    if (open.size === 0) complete = index + 1;
  }
  const kept = messages.slice(0, complete);
  const tokens = kept.reduce((sum, message) => sum + estimateMessageTokens(message), 0);
  const limit = Math.min(LIMITS.childContextTokens, Math.floor(spec.maxTokens / 2));
  if (tokens > limit) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the parent's conversation is about ${tokens} tokens, over the ${limit} a child may inherit`, {
      hint: 'start the child fresh (inherit_context: false; `xdog claw agents start --fresh`) and put what it needs into its task, or compact the conversation first',
    });
  }
  return structuredClone(kept);
}

function cap(name: string, value: number | undefined, limit: number): number {
  if (value === undefined) return limit;
  if (value > limit) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${name} ${value} is over the child limit of ${limit}`, { hint: `caps can be lowered, never raised: use at most ${limit}` });
  return value;
}

/**
 * Resolves a spawn: the preset's settings, then the spawn's own over them, then the caps.
 * Whether it inherits the parent's conversation: the spawn's `inherit_context`, else its
 * config's (or the preset's), else the host's default (`inheritByDefault`: the `agent` tool
 * starts children fresh; a user's start from a client inherits, as the seed's `/agents start`).
 */
export function resolveChildSpec(args: Extract<AgentToolArgs, { action: 'spawn' }>, presets: ChildPresets, inheritByDefault = false): ChildSpec {
  const requested = args.config ?? {};
  let base: ChildConfig = {};
  if (requested.preset !== undefined) {
    const preset = presets[requested.preset];
    if (!preset) throw new XdogError(ErrorCodes.NOT_FOUND, `no child preset named "${requested.preset}"`, { hint: `presets: ${Object.keys(presets).join(', ') || 'none'}` });
    base = preset;
  }
  const config: ChildConfig = { ...base, ...Object.fromEntries(Object.entries(requested).filter(([, value]) => value !== undefined)) };
  return {
    task: args.task,
    access: args.access ?? 'read-only',
    inheritContext: args.inherit_context ?? config.inherit_context ?? inheritByDefault,
    inheritTodos: args.inherit_todos ?? false,
    label: config.label,
    instructions: config.instructions,
    tools: config.tools,
    model: config.model,
    thinking: config.thinking,
    timeoutSeconds: cap('timeout', config.timeout, LIMITS.childTimeoutSeconds),
    maxModelCalls: cap('max_model_calls', config.max_model_calls, LIMITS.childModelCalls),
    maxTokens: cap('max_tokens', config.max_tokens, LIMITS.childTokens),
  };
}

/** The tools a child may never have: no recursive delegation, no plan updates, not the parent's todo list (inherit_todos gives it a copy). */
export const PARENT_ONLY_TOOLS: readonly string[] = ['agent', 'update_plan', ...TODO_TOOL_NAMES];
