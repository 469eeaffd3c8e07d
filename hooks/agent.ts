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

/** Return it from `beforeToolCall` to stop the call; the model gets an error tool result with `reason`. */
export interface BeforeToolCallResult {
  block: true;
  reason: string;
}

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

/** A copied preparation for compaction. */
export interface CompactionPreparation {
  messages: Message[];
  firstKeptIndex: number;
  originalCount: number;
  tokensBefore: number;
  contextLimit?: number;
  automatic: boolean;
  instructions?: string;
  previous?: string;
}

export type BeforeCompactResult =
  | { cancel: true; reason?: string }
  | { summary: string; firstKeptIndex?: number; details?: unknown };

export interface CompactionCommitted {
  before: number;
  after: number;
  summary: string;
  details?: unknown;
}

/** Creates the hooks of one Agent. */
export function createAgentHooks() {
  return Object.freeze({
    /**
     * AsyncSeriesBail. Runs serially before each tool call, after argument
     * validation; sees the actual tool and the final arguments. The first tap
     * returning `{block: true, reason}` stops the call: the executor never runs
     * and the model gets an error tool result naming the reason.
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
     * AsyncSeriesWaterfall. Rewrites a copy of the messages before every model
     * call; never the transcript. An invalid result (unknown role, orphan tool
     * result) fails the request.
     * @since 0.1.0
     */
    context: new AsyncSeriesWaterfallHook<[Message[], ContextHookInfo]>(['messages', 'info']),
    /**
     * AsyncSeriesBail. Before a compaction: return nothing to continue,
     * `{cancel: true}` to veto, or `{summary}` to supply the one custom summary.
     * @since 0.1.0
     */
    beforeCompact: new AsyncSeriesBailHook<[CompactionPreparation], BeforeCompactResult | undefined>(['preparation']),
    /**
     * AsyncSeries. Observes a compaction after it was committed.
     * @since 0.1.0
     */
    compact: new AsyncSeriesHook<[CompactionCommitted]>(['committed']),
  });
}

export type AgentHooks = ReturnType<typeof createAgentHooks>;

/** Image parts as `inputTransform` describes them. */
export type DescribedImage = Pick<ImageContent, 'mimeType'> & { bytes: number };
