/**
 * The hook points of one Agent. The Agent builds them in its constructor
 * (`agent.hooks`); plugins reach them through the kernel's `agentCreated`.
 * Use `tapHook()` for a disposer that removes only that tap.
 */
import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable';
import type { ImageContent, Message, ToolCall } from '../core/agent/messages.js';
import type { AgentTool, AgentToolResult } from '../core/agent/tool-types.js';

/** What `beforeToolCall` sees: the actual tool and its final, validated arguments. */
export interface BeforeToolCallContext {
  toolCall: ToolCall;
  tool: AgentTool;
  /** Validated (and transformed) arguments; what `execute` will receive. */
  args: Record<string, unknown>;
  /** True for tools that proxy an MCP server. */
  remote: boolean;
  signal: AbortSignal;
}

/**
 * Return it from `beforeToolCall` to stop the call (`block`: the model gets an
 * error tool result with `reason`) or to have a person decide (`ask`: the
 * agent's ApprovalBroker is asked with `reason`; without one it is a denial).
 */
export type BeforeToolCallResult = { block: true; reason: string } | { ask: true; reason: string };

/** What `afterToolCall` receives and may return (changed fields replace the result's fields whole). */
export interface AfterToolCallContext {
  toolCall: ToolCall;
  args: Record<string, unknown>;
  result: AgentToolResult;
  isError: boolean;
}

/** Where an input came from. */
export type InputSource = 'prompt' | 'steer' | 'followUp' | 'continue';

/** What `inputTransform` sees. Images are described (MIME type, size), never their bytes. */
export interface InputTransformRequest {
  text: string;
  images: Array<{ mimeType: string; bytes: number }>;
  source: InputSource;
  /** The id of an identified queued input. */
  id?: string;
}

/** A tap's answer. `undefined` or a bare string are shorthands for continue and transform. */
export type InputTransformResult =
  | { action: 'continue' }
  | { action: 'transform'; text: string }
  | { action: 'reject'; reason: string }
  | { action: 'handled'; feedback: string };

/** What `context` taps see besides the messages. */
export interface ContextHookInfo {
  model: string;
  systemPrompt?: string;
  turn: number;
}

/** Why a compaction runs: asked for, the context neared the window, or the provider reported an overflow. */
export type CompactionReason = 'manual' | 'threshold' | 'overflow';

/** A copied preparation for compaction: what `beforeCompact` taps see (changing it changes nothing). */
export interface CompactionPreparation {
  /** The whole history (a copy); message 0 is the previous summary when `previous` is set. */
  messages: Message[];
  /** The planned cut: messages before it are summarized, the rest kept. */
  firstKeptIndex: number;
  originalCount: number;
  tokensBefore: number;
  /** The context window the agent compacts against, when one is known. */
  contextLimit?: number;
  automatic: boolean;
  reason: CompactionReason;
  instructions?: string;
  /** The summary of the previous compaction, which the new one replaces. */
  previous?: string;
}

/**
 * A `beforeCompact` tap's answer: nothing (or `{}`) continues, `cancel`
 * vetoes, `summary` supplies the summary (≤ 256 KiB, non-empty) instead of the
 * model, optionally with another cut (a user-turn start) and `details` (JSON ≤ 64 KiB).
 */
export type BeforeCompactResult =
  | Record<string, never>
  | { cancel: true; reason?: string }
  | { summary: string; firstKeptIndex?: number; details?: unknown };

/** What the `compact` hook observes once a compaction is committed. */
export interface CompactionCommitted {
  /** Message counts before and after. */
  before: number;
  after: number;
  summary: string;
  details?: unknown;
  tokensBefore: number;
  tokensAfter: number;
  automatic: boolean;
  reason: CompactionReason;
  /** Set when the host's `persist` kept the full history somewhere it can be restored from. */
  recoveryBranchId?: string;
}

/** Creates the hooks of one Agent. */
export function createAgentHooks() {
  return Object.freeze({
    /**
     * AsyncSeriesBail. Runs serially before each tool call, after argument
     * validation; sees the actual tool and the final arguments. The first tap
     * returning `{block: true, reason}` stops the call: the executor never runs
     * and the model gets an error tool result naming the reason. The first
     * returning `{ask: true, reason}` hands the call to the agent's
     * ApprovalBroker (approve, deny with a reason, or edit the arguments).
     * @since 0.1.0
     */
    beforeToolCall: new AsyncSeriesBailHook<[BeforeToolCallContext], BeforeToolCallResult | undefined>(['context']),
    /**
     * AsyncSeriesWaterfall. Runs serially after each tool call, in call order.
     * A tap may return a changed context whose `result`/`isError` replace the
     * actual ones; a tap that throws is skipped and the real result is kept.
     * @since 0.1.0
     */
    afterToolCall: new AsyncSeriesWaterfallHook<[AfterToolCallContext]>(['context']),
    /**
     * Series, bail on a terminal result. Runs before any input (prompt,
     * steer, follow-up, continuation) is admitted to history. Each tap returns
     * continue / transform (the next tap sees the new text) / reject / handled,
     * validated exactly; reject and handled stop the chain. Limits: text 1 MiB,
     * reason 2000 bytes, feedback non-empty up to 64 KiB.
     * @since 0.1.0
     */
    inputTransform: new AsyncSeriesBailHook<[InputTransformRequest], InputTransformResult | string | undefined>([
      'request',
    ]),
    /**
     * AsyncSeriesWaterfall. Rewrites the message list of every model call;
     * never the transcript. Taps get read-only (frozen) copies of the messages
     * and return a new list (new objects for changed messages); writing into a
     * copy or an invalid result (unknown role, orphan tool result) fails the request.
     * @since 0.1.0
     */
    context: new AsyncSeriesWaterfallHook<[Message[], ContextHookInfo]>(['messages', 'info']),
    /**
     * AsyncSeriesBail. Before a compaction, once it has a plan: return nothing
     * to continue, `{cancel: true, reason}` to veto (history unchanged, no model
     * call), or `{summary}` to supply the one custom summary. Every tap is asked;
     * two taps supplying a summary, a throwing tap or an invalid answer fail the
     * compaction closed (history unchanged, no model fallback).
     * @since 0.1.0
     */
    beforeCompact: new AsyncSeriesBailHook<[CompactionPreparation], BeforeCompactResult | undefined>(['preparation']),
    /**
     * AsyncSeriesWaterfall. Rewrites a compaction's summary (the model's or a
     * `beforeCompact` tap's) before it is committed, so a host can carry state
     * the model must still see afterwards (the todos plugin appends the open
     * items). Each tap gets the summary so far and returns the next one; a
     * throwing tap or an empty, non-string or over-limit result fails the
     * compaction closed (history unchanged).
     * @since 0.3.0
     */
    compactionSummary: new AsyncSeriesWaterfallHook<[string, CompactionPreparation]>(['summary', 'preparation']),
    /**
     * AsyncSeries. Observes a compaction after it was committed (and, with a
     * `persist` option, durably stored). A failing tap is ignored: the
     * compaction stands.
     * @since 0.1.0
     */
    compact: new AsyncSeriesHook<[CompactionCommitted]>(['committed']),
  });
}

export type AgentHooks = ReturnType<typeof createAgentHooks>;

/** Image parts as `inputTransform` describes them. */
export type DescribedImage = Pick<ImageContent, 'mimeType'> & { bytes: number };
