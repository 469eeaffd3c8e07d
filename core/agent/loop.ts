/**
 * The agent loop: stateless functions over one run. Everything it needs
 * comes in through AgentLoopConfig (closures owned by the Agent); it reports
 * only through `emit` and `commit`. One turn: build the request → stream the
 * model → run the tool batch → checkpoint (steer, then follow-up).
 */
import { describeError } from '../errors.js';
import type { ModelContext, ModelStreamFn } from '../model/types.js';
import { zeroUsage, type AssistantMessage, type Message, type ToolCall, type ToolResultMessage } from './messages.js';
import { isContextOverflow } from './overflow.js';
import { executeToolBatch, skippedToolResults, type ActiveTool, type ToolBatchConfig } from './tool-execution.js';

/** One turn's request and the tools its calls may use. */
export interface TurnRequest {
  context: ModelContext;
  tools: ReadonlyMap<string, ActiveTool>;
}

/** What the loop gets from its owner. Callbacks other than `buildContext` must not throw. */
export interface AgentLoopConfig extends ToolBatchConfig {
  model: string;
  streamFn: ModelStreamFn;
  reasoning?: string;
  /**
   * Builds the request for `turn` and the tools its calls may use; may throw
   * XdogError to refuse the request (the run then fails, history untouched).
   */
  buildContext(turn: number): TurnRequest | Promise<TurnRequest>;
  /** Appends a final message to history (the loop has already emitted its events). */
  commit(message: Message): void;
  /** Called after each turn's results are in history (a safe boundary). */
  afterTurn(): Promise<void> | undefined;
  /** Admits the next steer, if any; true when one reached history (a plain value when nothing was queued). */
  admitSteer(): Promise<boolean> | boolean;
  /** Admits the next follow-up, if any; true when one reached history (a plain value when nothing was queued). */
  admitFollowUp(): Promise<boolean> | boolean;
  /**
   * Called at most once per run when the model reports a context overflow:
   * true when history was compacted and the turn should be tried again (the
   * failed message is then dropped, never committed). Must not throw.
   */
  recoverOverflow?(message: AssistantMessage): Promise<boolean>;
  /**
   * Calls of the last assistant message still without results (a restored
   * run that waited for an approval): they run first, with these tools, and
   * the loop then goes on as after any tool batch. The model is not asked again.
   */
  pendingCalls?: { calls: readonly ToolCall[]; tools: ReadonlyMap<string, ActiveTool> };
}

/** How the loop ended. */
export interface LoopOutcome {
  status: 'completed' | 'aborted' | 'error';
  lastMessage?: AssistantMessage;
}

function failedMessage(model: string, reason: 'error' | 'aborted', errorMessage: string, now: number): AssistantMessage {
  return { role: 'assistant', content: [], model, usage: zeroUsage(), stopReason: reason, errorMessage, timestamp: now };
}

/** Streams one assistant message, emitting its start and updates. Never throws: a broken stream becomes an error message. */
async function receiveAssistant(config: AgentLoopConfig, context: ModelContext): Promise<{ message: AssistantMessage; started: boolean }> {
  let started = false;
  let final: AssistantMessage | undefined;
  try {
    const options = config.reasoning === undefined ? { signal: config.signal } : { signal: config.signal, reasoning: config.reasoning };
    for await (const event of config.streamFn(config.model, context, options)) {
      if (event.type === 'done' || event.type === 'error') {
        final = event.message;
        break;
      }
      if (event.type === 'retry') {
        await config.emit({ type: 'model_retry', attempt: event.attempt, delayMs: event.delayMs, reason: event.reason });
        continue;
      }
      if (!started) {
        started = true;
        await config.emit({ type: 'message_start', message: event.partial });
      }
      if (event.type !== 'start') await config.emit({ type: 'message_update', message: event.partial, delta: event });
    }
    if (!final) {
      final = config.signal.aborted
        ? failedMessage(config.model, 'aborted', 'the run was aborted', config.now())
        : failedMessage(config.model, 'error', 'the model stream ended without a final message', config.now());
    }
  } catch (error) {
    final = failedMessage(config.model, config.signal.aborted ? 'aborted' : 'error', `the model stream failed: ${describeError(error)}`, config.now());
  }
  return { message: final, started };
}

/** Ends a received message: its end event, then history. */
async function finishAssistant(config: AgentLoopConfig, message: AssistantMessage, started: boolean): Promise<void> {
  if (!started) await config.emit({ type: 'message_start', message });
  await config.emit({ type: 'message_end', message });
  config.commit(message);
}

function toolCallsOf(message: AssistantMessage): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const part of message.content) if (part.type === 'toolCall') calls.push(part);
  return calls;
}

async function commitAll(config: AgentLoopConfig, messages: ToolResultMessage[]): Promise<void> {
  for (const message of messages) {
    await config.emit({ type: 'message_start', message });
    await config.emit({ type: 'message_end', message });
    config.commit(message);
  }
}

/** Runs turns until the model stops with no queued work, the run is aborted, or the model fails. */
export async function runAgentLoop(config: AgentLoopConfig): Promise<LoopOutcome> {
  let lastMessage: AssistantMessage | undefined;
  let overflowRecovered = false;
  if (config.pendingCalls?.calls.length) {
    const pending = config.pendingCalls;
    await commitAll(config, config.signal.aborted ? skippedToolResults(pending.calls, 'the run was aborted', config.now()) : await executeToolBatch(config, pending.calls, pending.tools));
    await config.afterTurn();
    if (config.signal.aborted) return { status: 'aborted' };
    await config.admitSteer();
  }
  for (let turn = 1; ; turn++) {
    if (config.signal.aborted) return { status: 'aborted', lastMessage };
    const { context, tools } = await config.buildContext(turn);
    await config.emit({ type: 'turn_start', turn });
    const received = await receiveAssistant(config, context);
    const message = received.message;
    if (config.recoverOverflow && !overflowRecovered && !config.signal.aborted && isContextOverflow(message)) {
      overflowRecovered = true;
      if (await config.recoverOverflow(message)) {
        turn--; // the same turn again, on the compacted history
        continue;
      }
    }
    await finishAssistant(config, message, received.started);
    lastMessage = message;
    const calls = toolCallsOf(message);
    let toolResults: ToolResultMessage[];
    const failed = message.stopReason === 'error' || message.stopReason === 'aborted';
    if (failed || config.signal.aborted) {
      // Tool calls of a failed or aborted message never run; answering them keeps history paired.
      const why = failed ? `the model response ended with ${message.stopReason}` : 'the run was aborted';
      toolResults = skippedToolResults(calls, why, config.now());
    } else {
      toolResults = calls.length ? await executeToolBatch(config, calls, tools) : [];
    }
    await commitAll(config, toolResults);
    await config.emit({ type: 'turn_end', turn, message, toolResults });
    await config.afterTurn();
    if (failed) return { status: message.stopReason === 'aborted' ? 'aborted' : 'error', lastMessage };
    if (config.signal.aborted) return { status: 'aborted', lastMessage };
    if (await config.admitSteer()) continue;
    if (calls.length && !config.signal.aborted) continue;
    if (await config.admitFollowUp()) continue;
    // An abort that arrived while inputs were being admitted still counts.
    return { status: config.signal.aborted ? 'aborted' : 'completed', lastMessage };
  }
}
