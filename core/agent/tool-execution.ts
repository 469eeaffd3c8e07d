/**
 * Runs the tool calls of one assistant message: prepare (look up, validate
 * arguments, `beforeToolCall`) → execute → finalise (`afterToolCall`).
 * Parallel mode prepares serially, executes together and finalises in call
 * order; sequential mode runs each call through all three before the next.
 * Every failure becomes an error tool result, never a throw, so the
 * transcript stays paired.
 */
import { z } from 'zod';
import type { AfterToolCallContext, AgentHooks, BeforeToolCallContext } from '../../hooks/agent.js';
import { ApprovalAnswerSchema, type ApprovalAnswer, type ApprovalBroker } from '../approvals.js';
import { describeError } from '../errors.js';
import { ImageContentSchema, TextContentSchema, type TextContent, type ToolCall, type ToolResultMessage } from './messages.js';
import type { AgentEvent } from './events.js';
import { instrumented, type AgentInstrumentation } from './instrumentation.js';
import { snapshotTaps } from './tap-dispatch.js';
import { checkToolArguments } from './tool-arguments.js';
import type { AgentTool, AgentToolResult } from './tool-types.js';
import type { ToolExecutionMode } from './types.js';

/** A tool the model may call in this turn, and whether it proxies a remote (MCP) server. */
export interface ActiveTool {
  tool: AgentTool;
  remote: boolean;
}

/** What every batch of a run needs; a batch touches no agent state. */
export interface ToolBatchConfig {
  hooks: AgentHooks;
  signal: AbortSignal;
  mode: ToolExecutionMode;
  toolCtx: Record<string, unknown>;
  /** Returns a promise when the event must be waited for (a full buffer), else nothing. */
  emit(event: AgentEvent): Promise<void> | undefined;
  now(): number;
  /** Wraps each tool call (see instrumentation.ts); absent for most agents. */
  instrumentation?: AgentInstrumentation;
  /** Who is asked when a `beforeToolCall` tap answers `ask`; without one an ask is a denial. */
  approvals?: ApprovalBroker;
}

/** A finished call before finalisation. */
interface Outcome {
  result: AgentToolResult;
  isError: boolean;
}

type Prepared =
  | { kind: 'ready'; call: ToolCall; active: ActiveTool; args: Record<string, unknown>; edited?: boolean }
  | { kind: 'immediate'; call: ToolCall; args: Record<string, unknown>; outcome: Outcome };

/**
 * A deep copy of JSON-like data (what tool arguments are), made directly;
 * anything else (a Date, a Map...) goes through structuredClone.
 */
function cloneData<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneData) as T;
  if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = cloneData((value as Record<string, unknown>)[key]);
  return copy as T;
}

/**
 * The common result, checked without zod: a plain object holding only
 * `content` (text parts of exactly { type, text }) and optionally `details`
 * and a boolean `isError`. Returns a copy as ToolResultShape would, or
 * undefined when the result needs the full schema (images, extra keys,
 * anything invalid).
 */
function plainTextResult(raw: unknown): AgentToolResult | undefined {
  if (typeof raw !== 'object' || raw === null || Object.getPrototypeOf(raw) !== Object.prototype) return undefined;
  const { content, details, isError } = raw as Record<string, unknown>;
  let keys = 1;
  if (details !== undefined || 'details' in raw) keys++;
  if (isError !== undefined || 'isError' in raw) keys++;
  if (Object.keys(raw).length !== keys || !Array.isArray(content) || (isError !== undefined && typeof isError !== 'boolean')) return undefined;
  const parts: TextContent[] = [];
  for (const part of content as unknown[]) {
    if (typeof part !== 'object' || part === null) return undefined;
    const { type, text } = part as Record<string, unknown>;
    if (type !== 'text' || typeof text !== 'string' || Object.keys(part).length !== 2) return undefined;
    parts.push({ type, text });
  }
  const result: AgentToolResult = { content: parts };
  if (details !== undefined) result.details = details;
  if (isError !== undefined) result.isError = isError as boolean;
  return result;
}

/** A tool's result checked against ToolResultShape, or the message saying why it is invalid. */
function parseResult(raw: unknown, toolName: string): AgentToolResult | string {
  const shaped = ToolResultShape.safeParse(raw);
  if (shaped.success) return shaped.data as AgentToolResult;
  const issue = shaped.error.issues[0];
  return `Tool "${toolName}" returned an invalid result: ${issue?.path.join('.') || 'result'}: ${issue?.message ?? 'bad shape'}`;
}

const ToolResultShape = z.object({
  content: z.array(z.union([TextContentSchema, ImageContentSchema])),
  details: z.unknown().optional(),
  isError: z.boolean().optional(),
});

function errorOutcome(text: string): Outcome {
  return { result: { content: [{ type: 'text', text }], isError: true }, isError: true };
}

function notExecuted(why: string): string {
  return `Tool call not executed: ${why}`;
}

const BlockShape = z.object({ block: z.literal(true), reason: z.string() }).strict();
const AskShape = z.object({ ask: z.literal(true), reason: z.string() }).strict();

/** Hands an asked call to the broker and turns the answer into the call's preparation. */
async function askPerson(call: ToolCall, active: ActiveTool, args: Record<string, unknown>, reason: string, config: ToolBatchConfig): Promise<Prepared> {
  const immediate = (text: string): Prepared => ({ kind: 'immediate', call, args, outcome: errorOutcome(text) });
  if (!config.approvals) return immediate(`Tool call denied: it needs a person's approval (${reason}) and nobody can be asked here`);
  let answer: ApprovalAnswer;
  try {
    const given = await config.approvals.request({ toolCall: call, args: cloneData(args), reason, parameters: active.tool.parameters, toolCtx: { ...config.toolCtx } }, config.signal);
    const shaped = ApprovalAnswerSchema.safeParse(given);
    if (!shaped.success) return immediate('Tool call denied: the approval broker gave an invalid answer');
    answer = shaped.data as ApprovalAnswer;
  } catch (error) {
    if (config.signal.aborted) return immediate(notExecuted('the run was aborted'));
    return immediate(`Tool call denied: asking for approval failed: ${describeError(error)}`);
  }
  if (config.signal.aborted) return immediate(notExecuted('the run was aborted'));
  if (answer.action === 'deny') return immediate(`Tool call denied: ${answer.reason}`);
  if (answer.action === 'approve') return { kind: 'ready', call, active, args };
  const edited = checkToolArguments(active.tool, cloneData(answer.args));
  if (!edited.ok) return immediate(`Tool call not executed: the edited arguments are invalid for tool "${call.name}": ${edited.error}`);
  return { kind: 'ready', call, active, args: edited.args, edited: true };
}

async function prepare(call: ToolCall, config: ToolBatchConfig, tools: ReadonlyMap<string, ActiveTool>): Promise<Prepared> {
  // Hooks and the tool get their own copy: changing it in place must not rewrite the call in history.
  const given = cloneData(call.arguments);
  // After an abort nobody is asked to approve a call that will not run.
  if (config.signal.aborted) return { kind: 'immediate', call, args: given, outcome: errorOutcome(notExecuted('the run was aborted')) };
  const active = tools.get(call.name);
  if (!active) return { kind: 'immediate', call, args: given, outcome: errorOutcome(`Tool "${call.name}" is not available`) };
  const checked = checkToolArguments(active.tool, given);
  if (!checked.ok) {
    return { kind: 'immediate', call, args: given, outcome: errorOutcome(`Invalid arguments for tool "${call.name}": ${checked.error}`) };
  }
  const context: BeforeToolCallContext = { toolCall: call, tool: active.tool, args: checked.args, remote: active.remote, signal: config.signal };
  let edited = false;
  for (const tap of snapshotTaps(config.hooks.beforeToolCall)) {
    let answer: unknown;
    try {
      answer = await tap.call(context);
    } catch (error) {
      // Fail closed: a broken permission hook blocks the call.
      return { kind: 'immediate', call, args: context.args, outcome: errorOutcome(`Tool call blocked: permission hook "${tap.name}" failed: ${describeError(error)}`) };
    }
    if (answer === undefined || answer === null) continue;
    const ask = AskShape.safeParse(answer);
    if (ask.success) {
      const asked = await askPerson(call, active, context.args, ask.data.reason, config);
      if (asked.kind === 'immediate') return asked;
      // Approved (perhaps edited): the taps after this one still judge the call, with the arguments it will run with.
      context.args = asked.args;
      edited ||= asked.edited === true;
      continue;
    }
    const block = BlockShape.safeParse(answer);
    const reason = block.success ? block.data.reason : `permission hook "${tap.name}" returned an invalid result`;
    return { kind: 'immediate', call, args: context.args, outcome: errorOutcome(`Tool call blocked: ${reason}`) };
  }
  return { kind: 'ready', call, active, args: context.args, ...(edited ? { edited } : {}) };
}

function execute(prepared: Extract<Prepared, { kind: 'ready' }>, config: ToolBatchConfig): Promise<Outcome> {
  const wrap = config.instrumentation?.toolCall?.bind(config.instrumentation);
  if (!wrap) return executeReady(prepared, config);
  return instrumented(wrap, { toolCall: prepared.call, remote: prepared.active.remote }, () => executeReady(prepared, config));
}

async function executeReady(prepared: Extract<Prepared, { kind: 'ready' }>, config: ToolBatchConfig): Promise<Outcome> {
  const { call, active } = prepared;
  let args = prepared.args;
  if (active.remote) {
    // Remote calls are validated again right before they leave the process.
    const again = checkToolArguments(active.tool, args);
    if (!again.ok) return errorOutcome(`Invalid arguments for tool "${call.name}": ${again.error}`);
    args = again.args;
  }
  let pending = Promise.resolve();
  try {
    const raw = await active.tool.execute(args, {
      toolCallId: call.id,
      signal: config.signal,
      toolCtx: { ...config.toolCtx },
      onUpdate: (partial) => {
        pending = pending.then(() => config.emit({ type: 'tool_update', toolCallId: call.id, toolName: call.name, partial }));
        return pending;
      },
    });
    await pending;
    const result = plainTextResult(raw) ?? parseResult(raw, call.name);
    if (typeof result === 'string') return errorOutcome(result);
    return { result, isError: result.isError === true };
  } catch (error) {
    await pending.catch(() => undefined);
    if (config.signal.aborted) return errorOutcome(`Tool "${call.name}" was cancelled: ${describeError(error)}`);
    return errorOutcome(`Tool "${call.name}" failed: ${describeError(error)}`);
  }
}

const AfterShape = z.object({ result: ToolResultShape, isError: z.boolean() });

async function finalise(prepared: Prepared, outcome: Outcome, config: ToolBatchConfig): Promise<ToolResultMessage> {
  let context: AfterToolCallContext = { toolCall: prepared.call, args: prepared.args, result: outcome.result, isError: outcome.isError };
  for (const tap of snapshotTaps(config.hooks.afterToolCall)) {
    try {
      const answer = await tap.call(context);
      if (answer === undefined) continue;
      const shaped = AfterShape.safeParse(answer);
      // A tap that fails or answers badly is skipped: the real result is kept.
      if (shaped.success) context = { ...context, result: shaped.data.result as AgentToolResult, isError: shaped.data.isError };
    } catch {
      continue;
    }
  }
  // Built field by field: a spread of the result here was the costliest line of a tool turn.
  const { details } = context.result;
  let { content } = context.result;
  if (prepared.kind === 'ready' && prepared.edited) {
    content = [{ type: 'text', text: `Note: a person edited the arguments before this call ran; it ran with ${JSON.stringify(prepared.args)}` }, ...content];
  }
  const { isError } = context;
  const result: AgentToolResult = details === undefined ? { content, isError } : { content, details, isError };
  await config.emit({ type: 'tool_end', toolCallId: prepared.call.id, toolName: prepared.call.name, result, isError });
  const { id: toolCallId, name: toolName } = prepared.call;
  const timestamp = config.now();
  return details === undefined
    ? { role: 'toolResult', toolCallId, toolName, content, isError, timestamp }
    : { role: 'toolResult', toolCallId, toolName, content, details, isError, timestamp };
}

async function start(call: ToolCall, config: ToolBatchConfig, tools: ReadonlyMap<string, ActiveTool>): Promise<Prepared> {
  await config.emit({ type: 'tool_start', toolCallId: call.id, toolName: call.name, args: call.arguments });
  return prepare(call, config, tools);
}

function run(prepared: Prepared, config: ToolBatchConfig): Promise<Outcome> {
  if (prepared.kind !== 'ready') return Promise.resolve(prepared.outcome);
  // Nothing starts after an abort: a call the run was cancelled before is answered, never begun.
  if (config.signal.aborted) return Promise.resolve(errorOutcome(notExecuted('the run was aborted')));
  return execute(prepared, config);
}

/** Runs the calls of one message with `tools`; returns the tool-result messages in call order (the caller appends them). */
export async function executeToolBatch(config: ToolBatchConfig, calls: readonly ToolCall[], tools: ReadonlyMap<string, ActiveTool>): Promise<ToolResultMessage[]> {
  const results: ToolResultMessage[] = [];
  // One call runs the same either way; the sequential path spares it the parallel bookkeeping.
  if (config.mode === 'sequential' || calls.length === 1) {
    for (const call of calls) {
      const prepared = await start(call, config, tools);
      results.push(await finalise(prepared, await run(prepared, config), config));
    }
    return results;
  }
  const prepared: Prepared[] = [];
  for (const call of calls) prepared.push(await start(call, config, tools));
  const outcomes = await Promise.all(prepared.map((entry) => run(entry, config)));
  for (let index = 0; index < prepared.length; index++) results.push(await finalise(prepared[index]!, outcomes[index]!, config));
  return results;
}

/** Error results for calls that were never executed (the model message failed or the run was aborted). */
export function skippedToolResults(calls: readonly ToolCall[], why: string, now: number): ToolResultMessage[] {
  return calls.map((call) => ({
    role: 'toolResult',
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: 'text', text: notExecuted(why) }],
    isError: true,
    timestamp: now,
  }));
}
