/**
 * Around-hooks for observers that must *contain* a unit of work (a tracer:
 * a span has to be the active context while the work runs, so the MCP
 * requests and child agents inside a tool call nest under it). Events and
 * tapable hooks cannot do that: they run beside the work, not around it.
 *
 * An agent has at most one instrumentation (`agent.setInstrumentation`); each
 * wrapper receives the step's description and a `run` that performs the step
 * once. Without an instrumentation the agent calls the step directly, so an
 * uninstrumented agent pays one property read per step.
 */
import type { CompactionReason } from '../../hooks/agent.js';
import type { ModelContext } from '../model/types.js';
import type { AssistantMessage, Message, ToolCall } from './messages.js';
import type { AgentToolResult } from './tool-types.js';
import type { CompactionResult, RunResult } from './types.js';

/** A run (one prompt, with all its turns). */
export interface RunStepInfo {
  model: string;
  /** The messages the prompt adds (the user input), before the input transform. */
  input: readonly Message[];
  /** True for the host's own input (a scheduled job). */
  system: boolean;
}

/** One model call. */
export interface ModelCallStepInfo {
  model: string;
  turn: number;
  context: ModelContext;
}

/** One tool call that passed validation and `beforeToolCall`. */
export interface ToolCallStepInfo {
  toolCall: ToolCall;
  /** True for tools that proxy an MCP server. */
  remote: boolean;
}

/** A tool call's outcome as the loop sees it (before `afterToolCall`). */
export interface ToolCallOutcome {
  result: AgentToolResult;
  isError: boolean;
}

/** One compaction. */
export interface CompactionStepInfo {
  model: string;
  reason: CompactionReason;
}

/**
 * Wrappers around an agent's steps. Contract for every wrapper: call `run`
 * exactly once and return (or rethrow) what it gave. A wrapper that throws,
 * or returns without calling `run`, cannot break the agent: the step runs
 * (once) and its own outcome is what the agent uses.
 */
export interface AgentInstrumentation {
  run?(info: RunStepInfo, run: () => Promise<RunResult>): Promise<RunResult>;
  modelCall?(info: ModelCallStepInfo, run: () => Promise<AssistantMessage>): Promise<AssistantMessage>;
  toolCall?(info: ToolCallStepInfo, run: () => Promise<ToolCallOutcome>): Promise<ToolCallOutcome>;
  compaction?(info: CompactionStepInfo, run: () => Promise<CompactionResult>): Promise<CompactionResult>;
}

/** Runs `step` through `wrap` (when there is one), keeping the step's own outcome whatever the wrapper does. */
export async function instrumented<I, T>(wrap: ((info: I, run: () => Promise<T>) => Promise<T>) | undefined, info: I, step: () => Promise<T>): Promise<T> {
  if (!wrap) return step();
  let settled: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
  let started: Promise<T> | undefined;
  const once = () => {
    started ??= step().then(
      (value) => {
        settled = { ok: true, value };
        return value;
      },
      (error: unknown) => {
        settled = { ok: false, error };
        throw error;
      },
    );
    return started;
  };
  try {
    await wrap(info, once);
  } catch {
    // The wrapper's own failure is not the step's: fall through to the step's outcome.
  }
  if (!started) return step();
  await started.catch(() => undefined);
  if (settled!.ok) return settled!.value;
  throw settled!.error;
}
