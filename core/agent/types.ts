/**
 * Contracts of the agent runtime: configuration, inputs, queued inputs,
 * receipts and run results. Plain data only; behaviour lives in loop.ts
 * (stateless) and agent.ts (the stateful owner).
 */
import type { CompactionReason } from '../../hooks/agent.js';
import type { ImageContent, Message, StopReason, UserMessage } from './messages.js';
import type { AgentTool, RemoteToolSource } from './tool-types.js';
import type { ToolRepo } from './tool-repo.js';
import type { SkillDocument, SkillRepo } from '../skills/skill-repo.js';
import type { ApprovalBroker } from '../approvals.js';
import type { EmbedFunction } from './embed-tool.js';

/** How the tool calls of one assistant message run. */
export type ToolExecutionMode = 'parallel' | 'sequential';

/** What an Agent is built with. */
export interface AgentConfig {
  /** The model id passed to the stream function ("provider/model" or a bare id). */
  model: string;
  systemPrompt?: string;
  /** Default "parallel": executors run together; preparation and finalisation stay serial. */
  toolExecution?: ToolExecutionMode;
  /** Emit a `snapshot` event at every safe boundary (observation, not persistence). */
  emitSnapshots?: boolean;
  /** Reasoning effort passed to the model as `options.reasoning`. */
  thinking?: string;
}

/** Optional live inputs of an Agent. Nothing here is discovered: a bare Agent has no tools. */
export interface AgentOptions {
  /** The ordinary (local) tools, or a ToolRepo whose tools are taken as they are now. */
  tools?: readonly AgentTool[] | ToolRepo;
  /** Copied shallowly into every tool call (nest sinks in objects). */
  toolCtx?: Record<string, unknown>;
  /** Remote (MCP proxy) tools, kept apart from local tools. */
  remoteTools?: RemoteToolSource;
  /** The skill index `setActiveSkills` draws from; discovery activates nothing. */
  skills?: SkillRepo;
  /** Bounds of the steer/follow-up queue (default LIMITS.queuedInputs inputs of LIMITS.queuedInputBytes). */
  inputLimits?: { count: number; bytes: number };
  /** Session skill bodies read ahead (`SkillPlacement.read`); they start active. */
  preparedSkills?: readonly SkillDocument[];
  /** Compaction settings; without them `compact()` still works with the defaults and nothing is automatic. */
  compaction?: CompactionConfig;
  /** Asked about calls a `beforeToolCall` tap answers `ask` for; without it such a call is denied. `kernel.createAgent` uses the bound ApprovalBrokerToken. */
  approvals?: ApprovalBroker;
  /**
   * Asked before each model call of a run (not a compaction's summary call).
   * Resolves to let the call go; rejects with an XdogError to refuse it: the
   * run then fails with that error (history untouched), as a refused request.
   * A host's spending budgets use it.
   */
  beforeModelCall?: (turn: number) => Promise<void>;
  /** Adds the `embed` tool over this function (a provider's embeddings API); without it the agent has no such tool. */
  embed?: EmbedFunction;
}

/**
 * How an agent compacts its history. Nothing is automatic unless `auto` is
 * set, and even then only when a real context window is known: `contextWindow`
 * here (a host limit) or the model's metadata (`resolveModel().contextWindow`).
 */
export interface CompactionConfig {
  /** Compact before a model call once the context exceeds window − `reserveTokens`. Default false. */
  auto?: boolean;
  /** When the provider reports a context overflow, compact and retry the call once. Default: the value of `auto`. */
  retryOnOverflow?: boolean;
  /** Tokens kept free for the answer (default 16384). */
  reserveTokens?: number;
  /** Recent context kept verbatim, in estimated tokens (default 20000). */
  keepRecentTokens?: number;
  /** The context window to compact against, overriding the model's metadata. */
  contextWindow?: number;
  /**
   * Stores a compaction durably before the agent adopts it (a session store
   * writes the full history as a recovery branch, then the summary). If it
   * throws, the compaction fails and the history stays as it was. It may
   * return where the full history can be restored from.
   */
  persist?(record: CompactionRecord): Promise<{ recoveryBranchId?: string } | void>;
  /**
   * Archives the complete history before the summary is asked for (a
   * supervisor keeping every pre-compaction snapshot of a child). Called once
   * per compaction that goes ahead (after the plan and the `beforeCompact`
   * taps, before any summary request) and always awaited, even when the
   * compaction is cancelled meanwhile. If it throws, the compaction fails and
   * the history stays as it was.
   */
  archive?(archive: CompactionArchive): Promise<void>;
}

/** What `CompactionConfig.archive` receives: the whole history a compaction is about to summarize. */
export interface CompactionArchive {
  /** The number this compaction will have if it commits (1 for the first); a failed one is retried under the same number. */
  generation: number;
  reason: CompactionReason;
  automatic: boolean;
  /** The complete history (a copy), paired: every tool call has its result. */
  messages: Message[];
  tokensBefore: number;
}

/** The compaction state of a history: the summary its first message carries. Snapshots save it. */
export interface CompactionState {
  summary: string;
  details?: unknown;
  /** How many compactions this conversation has had. */
  count: number;
}

/** What `CompactionConfig.persist` receives: the whole change, before the agent adopts it. */
export interface CompactionRecord {
  reason: CompactionReason;
  automatic: boolean;
  /** The history before (complete) and after (the summary message, then the kept messages). */
  messagesBefore: Message[];
  messagesAfter: Message[];
  /** Index into `messagesBefore` of the first kept message. */
  firstKeptIndex: number;
  state: CompactionState;
  tokensBefore: number;
  tokensAfter: number;
}

/** What `compact()` reports: a committed compaction, or why nothing changed. */
export type CompactionResult =
  | {
      compacted: true;
      reason: CompactionReason;
      summary: string;
      details?: unknown;
      /** True when a `beforeCompact` tap supplied the summary (no model call). */
      custom: boolean;
      firstKeptIndex: number;
      /** Message counts before and after. */
      before: number;
      after: number;
      tokensBefore: number;
      tokensAfter: number;
      /** The number of this compaction in the conversation (1 for the first). */
      count: number;
      recoveryBranchId?: string;
    }
  | {
      compacted: false;
      /** "too-small": a single turn or less than keepRecentTokens (no model call); "vetoed": a beforeCompact tap said no. */
      reason: 'too-small' | 'vetoed';
      message: string;
    };

/** The lane of a queued input: a steer is admitted at the next checkpoint, a follow-up only when the agent would stop. */
export type InputLane = 'steer' | 'followUp';

/** A queued input's state. `rejected` inputs stay recoverable and are never selected again. */
export type QueuedInputState = 'queued' | 'selected' | 'rejected';

/** An identified queued input (immutable view). */
export interface QueuedInput {
  readonly id: string;
  readonly text: string;
  readonly images: readonly ImageContent[];
  readonly lane: InputLane;
  readonly state: QueuedInputState;
  /** Set when an input transform rejected it. */
  readonly rejectReason?: string;
}

/** How `changeInput` changes a queued input. */
export type InputChange = 'edit' | 'remove' | 'move';

/** A plain steer or follow-up an input transform rejected; recover it with `drainRejectedMessages()`. */
export interface RejectedMessage {
  message: UserMessage;
  lane: InputLane;
  reason: string;
}

/** The receipt of an input an input transform handled (it never reached history or the model). */
export interface HandledInput {
  /** The id of an identified input. */
  id?: string;
  source: 'prompt' | 'steer' | 'followUp';
  /** The original text and attachments. */
  text: string;
  images: readonly ImageContent[];
  feedback: string;
}

/** What `prompt()` accepts: text, one user message, or a list of messages forming one turn (`[]` continues). */
export type PromptInput = string | UserMessage | readonly Message[];

/** How `prompt()` treats its input. */
export interface PromptOptions {
  /** The host's own input (a scheduled job, a goal), not a person's: inputTransform taps do not see it. */
  system?: boolean;
}

/** How a prompt ended. */
export type RunStatus = 'completed' | 'aborted' | 'error' | 'rejected' | 'handled';

/**
 * What `PromptStream.result()` resolves to. It reports completion only;
 * read history from `agent.messages` or the `agent_end` event.
 */
export interface RunResult {
  status: RunStatus;
  /** Messages this run added to history, in order. */
  newMessages: Message[];
  /** The stop reason of the last assistant message, when there was one. */
  stopReason?: StopReason;
  /** The model's error message, or the reject reason of the initial input. */
  errorMessage?: string;
}
