/**
 * The extension API, published as `xdog/extension`. An extension is a module
 * whose default export (or named `setup`) is `setup(api)`; it runs in its own
 * worker process, and every callback it registers is called over a private
 * channel with a deadline. A callback that throws, times out or answers out of
 * contract quarantines the extension (docs/extensions.md).
 */

/** Undoes one registration; calling it again does nothing. */
export type Disposer = () => void;

/** JSON data: what crosses the channel. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A message as extensions see it (the agent's message shape, as plain JSON). */
export type ExtensionMessage = { role: 'user' | 'assistant' | 'toolResult'; content: unknown; [key: string]: unknown };

/** The parts of a rich command result (`api.result`): at least one; structured and details are any JSON (false, 0 and null included). */
export interface CommandContent {
  /** At most 1 MiB. */
  text?: string;
  /** Base64 of a PNG, JPEG or WebP image of at most 2 MiB; the host checks its bytes match mimeType. */
  image?: { data: string; mimeType: 'image/png' | 'image/jpeg' | 'image/webp' | string };
  /** JSON of at most 64 KiB, nested at most 64 deep. */
  structured?: Json;
  details?: Json;
}

/** What `api.result` returns: return it from a command's run. */
export type CommandResult = Readonly<{ kind: 'xdog.command-result' } & CommandContent>;

/**
 * The whole argument a completion callback may see, when the caller has the
 * whole draft (the TUI's editor); prefix-only callers give undefined. Offsets
 * are Unicode code points into `arguments` (the text after the command):
 * the token being completed is `[start, end)`, and the prefix is
 * `[start, cursor)`. It is the callback's own copy: the host replaces that
 * token whatever the callback does with it.
 */
export interface ArgumentContext {
  arguments: string;
  cursor: number;
  start: number;
  end: number;
}

export interface CommandSpec {
  description?: string;
  /** Runs `/ext-ID-NAME ARGS` (or `/PUBLIC ARGS`); returns the text shown to the user, or a rich result from `api.result` (never a message or tool result). */
  run(args: string): string | void | CommandResult | Promise<string | void | CommandResult>;
  /** Completions for the token at the cursor (at most 32 items); each replaces that token. */
  complete?(prefix: string, context?: ArgumentContext): string[] | Promise<string[]>;
  /**
   * Also typed as `/NAME` (1-32 lower-case letters, digits or "-", starting with a letter, not "ext-");
   * the command keeps its identity (`/ext-ID-NAME` still runs it). A name a front end or another
   * extension already has is refused, never shadowed.
   */
  publicName?: string;
  /** Replace a command of the same name (names compare case-insensitively) instead of failing. */
  replace?: boolean;
  /** A key that runs the command with no arguments in `xdog claw tui`: "alt+" and a lower-case letter or digit (not b, f, d or y). */
  shortcut?: string;
}

/** Agent events, in the order a run emits them: `agent_start`, then per model call `turn_start` and `turn_end`, then `agent_end`. */
export type LifecycleEvent = 'agent_start' | 'turn_start' | 'turn_end' | 'agent_end';

/** What a lifecycle callback gets: the event, and for turn events the turn number (from 1 within the run). */
export interface LifecycleInfo {
  event: LifecycleEvent;
  turn?: number;
}

/** What `session_before_compact` gets: a copy of the whole history and the planned cut. */
export interface CompactionPreparationInfo {
  messages: ExtensionMessage[];
  /** Messages before it are summarized, the rest kept. */
  firstKeptIndex: number;
  originalCount: number;
  tokensBefore: number;
  contextLimit?: number;
  automatic: boolean;
  reason: 'manual' | 'threshold' | 'overflow';
  instructions?: string;
  /** The summary of the previous compaction, which this one replaces. */
  previous?: string;
}

/** Answer of `session_before_compact`: a custom `summary` is non-empty and at most 256 KiB, `details` JSON of at most 64 KiB, `firstKeptIndex` a user-turn start. */
export type BeforeCompactAnswer = void | undefined | Record<string, never> | { cancel: true; reason?: string } | { summary: string; firstKeptIndex?: number; details?: Json };

/** What `session_compact` gets once a compaction is committed. */
export interface CompactionInfo {
  /** Message counts before and after. */
  before: number;
  after: number;
  summary: string;
  details?: Json;
  tokensBefore: number;
  tokensAfter: number;
  automatic: boolean;
  reason: 'manual' | 'threshold' | 'overflow';
}

export interface ToolCallInfo {
  toolName: string;
  toolCallId: string;
  args: Record<string, unknown>;
}

/** Answer of `beforeToolCall`: nothing to allow, a block with a reason, or rewritten arguments (validated and re-checked by the host's gates). */
export type BeforeToolCallAnswer = void | undefined | { block: true; reason: string } | { args: Record<string, unknown> };

export interface ToolResultInfo extends ToolCallInfo {
  content: Array<{ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }>;
  isError: boolean;
}

export type AfterToolCallAnswer = void | undefined | { content?: ToolResultInfo['content']; isError?: boolean };

export interface InputInfo {
  text: string;
  source: 'prompt' | 'steer' | 'followUp';
}

export type InputAnswer =
  | void
  | undefined
  | { action: 'continue' }
  | { action: 'transform'; text: string }
  | { action: 'reject'; reason: string }
  | { action: 'handled'; feedback: string };

export interface ModelSpec {
  id: string;
  name?: string;
  contextWindow?: number;
  /** The prompt ceiling compaction works to (0 = unreported; at most contextWindow). */
  maxPromptTokens?: number;
  maxOutputTokens?: number;
  /** The reasoning efforts the model takes; a request for another is refused before `stream` is called. */
  supportedEfforts?: string[];
  /** The older name of supportedEfforts (give one of them). */
  reasoningEfforts?: string[];
  /**
   * Declaring it says the model takes images: requests over these limits are refused before `stream` is
   * called (image admission), history untouched. 0 means unreported; no media types means PNG, JPEG, WebP.
   */
  visionLimits?: { maxPromptImages?: number; maxPromptImageSize?: number; supportedMediaTypes?: string[] };
}

/** One event a provider yields. `done` or `error` ends the stream; an `error` turn runs none of its tool calls. */
export type ProviderEvent =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_call'; id: string; name: string; arguments: Record<string, unknown> }
  | { type: 'usage'; input: number; output: number }
  | { type: 'done' }
  | { type: 'error'; message: string; stopReason?: 'error' | 'aborted' };

export interface ProviderRequest {
  model: string;
  systemPrompt?: string;
  messages: ExtensionMessage[];
  tools: Array<{ name: string; description: string; parameters: Json }>;
}

export interface ProviderSpec {
  models: ModelSpec[];
  stream(request: ProviderRequest): AsyncIterable<ProviderEvent> | Iterable<ProviderEvent>;
  replace?: boolean;
}

export interface ToolSpec {
  /** The model sees it as `ext_NAME`, and only when that alias is in `extension_allow_tools`. */
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Json;
  execute(args: Record<string, unknown>): string | Promise<string>;
}

export interface DialogOptions {
  /** Seconds, 0.1-600 (default 60). Without a UI the answer comes at once: undefined / undefined / false. */
  timeoutSeconds?: number;
}

/** What inspection answers when the host has no such data (never invented data). */
export type Unavailable = 'unavailable';

export interface ContextUsage {
  source: 'last-response';
  tokens: number;
  contextWindow?: number;
  /** May exceed 100. */
  percent?: number;
}

/** One inert line of a session catalog: a session, or an entry of a session's tree. */
export interface SessionCatalogEntry {
  id: string;
  /** 'session', or the tree entry's kind ('message', 'compaction', 'label', 'custom', ...). */
  kind: string;
  /** A one-line title (a session's name or summary, a message preview): never the whole conversation. */
  title: string;
  detail: string;
  session: string;
  /** The group's active session; in a tree, on the path to the leaf. */
  active: boolean;
  parent?: string | null;
  depth?: number;
}

/** One page of a session catalog: at most 50 entries and 256 KiB; pass `revision` back with `nextOffset` to continue. */
export interface SessionCatalogPage {
  status: 'ok';
  scope: 'group' | 'tree';
  ownerSession: string | null;
  sessionId?: string;
  branchId?: string | null;
  query?: string;
  offset: number;
  total: number;
  entries: SessionCatalogEntry[];
  hasMore: boolean;
  nextOffset: number | null;
  revision: string;
}

/** A continuation refused because the catalog's membership changed: restart at offset 0 (with this revision or none). */
export interface StaleSessionCatalogPage {
  status: 'stale';
  revision: string;
  entries: [];
  hasMore: false;
  nextOffset: null;
}

export interface CatalogPaging {
  offset?: number;
  /** The revision of the page before; a changed catalog answers `status: 'stale'`. Empty or absent: a fresh page. */
  revision?: string;
}

export interface ExtensionAPI {
  /** The extension id (its package name). */
  readonly id: string;
  /** `extension_settings.ID` from the user's config (undefined when none). */
  readonly settings: Json | undefined;
  command(name: string, spec: CommandSpec): Disposer;
  /** A rich command result: text, an image, structured JSON and details (checked here, and again by the host). */
  result(content: CommandContent): CommandResult;
  /** Follows agent events; callbacks run in event order but never hold up the run (each still has the callback deadline). */
  on(event: LifecycleEvent, callback: (info: LifecycleInfo) => void | Promise<void>): Disposer;
  /**
   * Before a compaction, once it is planned: return nothing to continue, `{cancel: true, reason?}` to veto
   * (history unchanged), or `{summary, firstKeptIndex?, details?}` to supply the summary instead of the model.
   * Only one summary may win: a second one (from any hook) fails the compaction closed, and so does a
   * failing callback. The preparation is a copy; large ones arrive in checksummed blocks (up to 128 MiB).
   */
  on(event: 'session_before_compact', callback: (preparation: CompactionPreparationInfo) => BeforeCompactAnswer | Promise<BeforeCompactAnswer>): Disposer;
  /** After a compaction was committed; waited for (with the callback deadline), but a failure never undoes it. */
  on(event: 'session_compact', callback: (committed: CompactionInfo) => void | Promise<void>): Disposer;
  beforeToolCall(callback: (call: ToolCallInfo) => BeforeToolCallAnswer | Promise<BeforeToolCallAnswer>): Disposer;
  afterToolCall(callback: (result: ToolResultInfo) => AfterToolCallAnswer | Promise<AfterToolCallAnswer>): Disposer;
  /** Rewrites a copy of the messages before each model call (never the transcript); return undefined to keep them. */
  context(callback: (messages: ExtensionMessage[]) => ExtensionMessage[] | void | Promise<ExtensionMessage[] | void>): Disposer;
  /** Sees user inputs (system inputs are exempt). */
  onInput(callback: (input: InputInfo) => InputAnswer | Promise<InputAnswer>): Disposer;
  tool(spec: ToolSpec): Disposer;
  /** Stores namespaced JSON in the session, committed before this resolves (needs a session store: the gateway). */
  appendEntry(kind: string, data: Json): Promise<{ id: string }>;
  select(title: string, options: string[], dialog?: DialogOptions): Promise<string | undefined>;
  input(title: string, dialog?: DialogOptions & { placeholder?: string }): Promise<string | undefined>;
  confirm(title: string, dialog?: DialogOptions): Promise<boolean>;
  /** Sets (or with undefined clears) a status line under `key` (1-64 characters; text at most 1 KiB); a 33rd key throws. */
  status(key: string, text: string | undefined): void;
  /** Serves models as `ext-ID-NAME/MODEL`. */
  registerProvider(name: string, spec: ProviderSpec): Disposer;
  getModel(): Promise<{ id: string; provider: string; contextWindow?: number } | Unavailable>;
  getContextUsage(): Promise<ContextUsage | Unavailable>;
  getActiveTools(): Promise<string[] | Unavailable>;
  getSessionName(): Promise<string | Unavailable>;
  /** Every tool the agent has (local and MCP), and whether the model sees it now. */
  getToolInventory(): Promise<Array<{ name: string; description: string; active: boolean }> | Unavailable>;
  /** The commands of every active extension, as typed (`/ext-ID-NAME`), with the public name each one has. */
  getCommandCatalog(): Promise<Array<{ command: string; extension: string; description: string; completes: boolean; publicName?: string }>>;
  /** True while steering or follow-up input waits for the agent's next checkpoint. */
  hasPendingMessages(): Promise<boolean | Unavailable>;
  /** This extension's own `appendEntry` entries on the current session's path, oldest first ('unavailable' without a session store). */
  getEntries(): Promise<Array<{ id: string; kind: string; data: Json }> | Unavailable>;
  /**
   * The group's sessions, in creation order (only inside an interactive command's `run`; elsewhere, and
   * outside the gateway, 'unavailable'). `query` (≤ 1000 bytes) matches id, name or summary, case-insensitively.
   */
  listSessions(request?: CatalogPaging & { query?: string }): Promise<SessionCatalogPage | StaleSessionCatalogPage | Unavailable>;
  /** A session's tree (default: the active session), or with `branchId` (an entry id) the path from the root to it; commands only, like listSessions. */
  getSessionTree(sessionId?: string, options?: CatalogPaging & { branchId?: string }): Promise<SessionCatalogPage | StaleSessionCatalogPage | Unavailable>;
}

export type ExtensionSetup = (api: ExtensionAPI) => void | Promise<void>;

/** Types `setup` for authors: `export default defineExtension((api) => { ... })`. */
export function defineExtension(setup: ExtensionSetup): ExtensionSetup {
  return setup;
}
