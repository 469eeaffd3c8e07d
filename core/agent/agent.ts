/**
 * The Agent: the stateful owner of one conversation (messages, model, tools,
 * active selection, input queues, hooks). The turn logic lives in loop.ts;
 * this class keeps state, admits inputs and turns misuse into XdogError.
 * Model, tool and hook failures never throw from here: they become
 * transcript data (stopReason error/aborted, error tool results).
 */
import { createAgentHooks, type AgentHooks, type InputTransformRequest } from '../../hooks/agent.js';
import type { Disposer } from '../../hooks/tap.js';
import type { ApprovalBroker } from '../approvals.js';
import { ErrorCodes, XdogError, describeError } from '../errors.js';
import { LIMITS, utf8Bytes } from '../limits.js';
import type { ModelInfo, ModelStreamFn } from '../model/types.js';
import type { CompactionReason } from '../../hooks/agent.js';
import { COMPACTION_DEFAULTS, contextTokens, planCompaction, type CompactionPlan } from './compaction.js';
import { prepareCompaction } from './compactor.js';
import { EventBuffer } from './event-buffer.js';
import type { AgentEvent, AgentEventListener } from './events.js';
import { base64Bytes, collectImages, findImages, type LocatedImage } from './image-admission.js';
import { InputQueue, type QueueEntry } from './input-queue.js';
import { instrumented, type AgentInstrumentation } from './instrumentation.js';
import { runInputTransform } from './input-transform.js';
import { runAgentLoop, type AgentLoopConfig } from './loop.js';
import { MessageSchema, UserMessageSchema, type ImageContent, type Message, type Usage, type UserMessage, zeroUsage } from './messages.js';
import { buildModelContext } from './model-context.js';
import {
  buildMetadata,
  buildSnapshot,
  parseParts,
  parseSnapshot,
  type AgentSnapshot,
  type RestoreOptions,
  type SkillBindings,
  type SnapshotMetadata,
  type SnapshotState,
} from './snapshot.js';
import type { ActiveTool } from './tool-execution.js';
import { toolDefinition } from './tool-arguments.js';
import { createEmbedTool } from './embed-tool.js';
import { ToolRepo, assertAgentTool } from './tool-repo.js';
import { SkillPlacement, type ActiveSkill, type SkillScope } from '../skills/skill-placement.js';
import type { SkillRepo } from '../skills/skill-repo.js';
import type { AgentTool, RemoteToolSource, ToolDefinition } from './tool-types.js';
import { findPairingProblem, unansweredCalls } from './transcript.js';
import { snapshotTaps } from './tap-dispatch.js';
import type {
  AgentConfig,
  AgentOptions,
  CompactionConfig,
  CompactionResult,
  CompactionState,
  HandledInput,
  InputChange,
  InputLane,
  PromptInput,
  PromptOptions,
  QueuedInput,
  RejectedMessage,
  RunResult,
  RunStatus,
} from './types.js';

/**
 * The event stream of one prompt. Iterate it to read events (the run waits
 * when 256 are unread); `result()` resolves when the run settles. Calling
 * `result()` without iterating discards the events so the run can finish.
 * `result()` rejects only when a request was refused before reaching the
 * model (HOOK_FAILED, IMAGE_REJECTED, CONFLICT...); model failures resolve
 * with status "error".
 */
export interface PromptStream extends AsyncIterable<AgentEvent> {
  result(): Promise<RunResult>;
}

/** Options of `setActiveTools`. */
export interface ActiveToolsOptions {
  /** Must equal `agent.toolSelectionRevision`; a stale value fails with CONFLICT. */
  expectedRevision: number;
}

interface RunOutcome {
  result: RunResult;
  error?: XdogError;
}

interface ActiveRun {
  controller: AbortController;
  /** A system input (scheduler, goals): it skips the inputTransform taps, which filter human input. */
  system: boolean;
  buffer: EventBuffer<AgentEvent>;
  done: Promise<RunOutcome>;
}

/** The PromptStream of one run (a class: an object literal with a symbol key is slow to build, once per prompt). */
class RunStream implements PromptStream {
  readonly #run: ActiveRun;

  constructor(run: ActiveRun) {
    this.#run = run;
  }

  [Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    return this.#run.buffer[Symbol.asyncIterator]();
  }

  /** An own property, as before: `const { result } = agent.prompt(...)` keeps working. */
  readonly result = async (): Promise<RunResult> => {
    if (!this.#run.buffer.iterating) this.#run.buffer.discard();
    const outcome = await this.#run.done;
    if (outcome.error) throw outcome.error;
    return outcome.result;
  };
}

/** A prompt checked and ready to admit: user inputs go through inputTransform, the rest is appended as is. */
type PreparedPrompt = Message[];

function textOf(message: UserMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

function imagesOf(message: UserMessage): ImageContent[] {
  return typeof message.content === 'string' ? [] : message.content.filter((part): part is ImageContent => part.type === 'image');
}

/** The message with its text replaced by `text`; images and the timestamp are kept. */
function withText(message: UserMessage, text: string): UserMessage {
  if (typeof message.content === 'string') return { ...message, content: text };
  const images = imagesOf(message);
  return { ...message, content: images.length ? [{ type: 'text', text }, ...images] : text };
}

function userMessage(text: string, images: readonly ImageContent[], now: number): UserMessage {
  return { role: 'user', content: images.length ? [{ type: 'text', text }, ...images] : text, timestamp: now };
}

function describeImages(images: readonly ImageContent[]): InputTransformRequest['images'] {
  return images.map((image) => ({ mimeType: image.mimeType, bytes: base64Bytes(image.data) }));
}

function addUsage(total: Usage, usage: Usage): Usage {
  return {
    input: total.input + usage.input,
    output: total.output + usage.output,
    cacheRead: total.cacheRead + (usage.cacheRead ?? 0),
    cacheWrite: total.cacheWrite + (usage.cacheWrite ?? 0),
  };
}

function checkMessageText(text: string): void {
  const bytes = utf8Bytes(text);
  if (bytes > LIMITS.messageTextBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `a user message is ${bytes} bytes of text, over the limit of ${LIMITS.messageTextBytes}`, {
      hint: 'send a shorter message, or attach the text as a file the tools can read',
    });
  }
}

/** Options of `compact()`. */
export interface CompactOptions {
  /** Cancels the compaction (so does `agent.abort()`); the history stays as it was. */
  signal?: AbortSignal;
}

function checkCompactionConfig(config: CompactionConfig | undefined): CompactionConfig {
  if (config === undefined) return {};
  if (typeof config !== 'object' || config === null) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'AgentOptions.compaction must be an object');
  for (const key of ['reserveTokens', 'keepRecentTokens', 'contextWindow'] as const) {
    const value = config[key];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `compaction.${key} must be a non-negative integer (got ${JSON.stringify(value)})`);
    }
  }
  if (config.contextWindow === 0) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'compaction.contextWindow must be positive');
  if (config.persist !== undefined && typeof config.persist !== 'function') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'compaction.persist must be a function');
  if (config.archive !== undefined && typeof config.archive !== 'function') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'compaction.archive must be a function');
  return { ...config };
}

/** One conversation with a model. Works without a kernel: `new Agent(streamFn, { model })`. */
export class Agent {
  /** The hook points of this agent (tap with `tapHook` for a disposer). */
  readonly hooks: AgentHooks = createAgentHooks();
  #config: AgentConfig;
  #streamFn: ModelStreamFn;
  #instrumentation: AgentInstrumentation | undefined;
  #messages: Message[] = [];
  /** The images in #messages, kept as history grows so a turn need not scan it all. */
  #images: LocatedImage[] = [];
  /** The active tools by name, kept until the tool set or selection changes (local tools only). */
  #toolMap?: { map: Map<string, ActiveTool>; definitions: ToolDefinition[] };
  #usage: Usage = zeroUsage();
  #localTools: AgentTool[] = [];
  #remote?: RemoteToolSource;
  #remoteDisposer?: () => void;
  #selection: string[] | null = null;
  #revision = 0;
  readonly #toolCtx: Record<string, unknown>;
  readonly #approvals: ApprovalBroker | undefined;
  readonly #queue: InputQueue;
  #rejected: RejectedMessage[] = [];
  #handled: HandledInput[] = [];
  /** Replaced, never changed in place, so dispatch walks a plain array while listeners come and go. */
  #listeners: readonly AgentEventListener[] = [];
  readonly #closeListeners = new Set<() => void>();
  #run?: ActiveRun;
  #closed = false;
  readonly #skills: SkillPlacement;
  readonly #compactionConfig: CompactionConfig;
  /** Set after a compaction: message 0 carries its summary. */
  #compaction?: CompactionState;
  /** Usage on assistant messages before this index describes a context that no longer exists (compacted). */
  #reliableFrom = 0;
  /** The controller of a compaction running outside a run (`compact()`). */
  #compacting?: AbortController;
  readonly #beforeModelCall?: (turn: number) => Promise<void>;
  /** The `embed` tool over `AgentOptions.embed`, when given. */
  readonly #embedTool?: AgentTool;

  constructor(streamFn: ModelStreamFn, config: AgentConfig, options: AgentOptions = {}) {
    if (typeof streamFn !== 'function') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'an Agent needs a model stream function');
    if (!config || typeof config.model !== 'string' || config.model.length === 0) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'AgentConfig.model must name a model', { hint: 'for example { model: "faux/demo" }' });
    }
    if (config.toolExecution !== undefined && config.toolExecution !== 'parallel' && config.toolExecution !== 'sequential') {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `unknown toolExecution ${JSON.stringify(config.toolExecution)}`, { hint: 'use "parallel" or "sequential"' });
    }
    this.#streamFn = streamFn;
    this.#config = { ...config };
    this.#toolCtx = { ...(options.toolCtx ?? {}) };
    this.#approvals = options.approvals;
    this.#queue = new InputQueue(options.inputLimits);
    this.#embedTool = options.embed ? createEmbedTool(options.embed) : undefined;
    if (options.tools || this.#embedTool) this.#replaceLocalTools(options.tools instanceof ToolRepo ? options.tools.tools : (options.tools ?? []));
    if (options.remoteTools) this.#attachRemote(options.remoteTools);
    this.#skills = new SkillPlacement(options.skills, options.preparedSkills);
    this.#compactionConfig = checkCompactionConfig(options.compaction);
    this.#beforeModelCall = options.beforeModelCall;
  }

  // ---- state -------------------------------------------------------------

  /** The configuration (a copy). */
  get config(): Readonly<AgentConfig> {
    return { ...this.#config };
  }

  /** The conversation history (a copy). */
  get messages(): Message[] {
    return this.#messages.slice();
  }

  /** Token usage summed over every assistant message this agent received. */
  get usage(): Usage {
    return { ...this.#usage };
  }

  /** True when no run (and no compaction) is in progress. */
  get isIdle(): boolean {
    return this.#run === undefined && this.#compacting === undefined;
  }

  /** The compaction state (the summary message 0 carries), or undefined when the history was never compacted. */
  get compactionState(): CompactionState | undefined {
    return this.#compaction && structuredClone(this.#compaction);
  }

  /**
   * The context size now (the provider's last reported usage plus estimates
   * for later messages) and the window compaction works against, when known.
   */
  contextUsage(): { tokens: number; contextWindow?: number } {
    const window = this.#contextWindow();
    return { tokens: contextTokens(this.#messages, this.#reliableFrom), ...(window === undefined ? {} : { contextWindow: window }) };
  }

  /** True after `close()`. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Observes every event of every run; returns an idempotent disposer. */
  subscribe(listener: AgentEventListener): Disposer {
    if (typeof listener !== 'function') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'subscribe() needs a function');
    const entry: AgentEventListener = (event) => listener(event);
    this.#listeners = [...this.#listeners, entry];
    return () => {
      this.#listeners = this.#listeners.filter((listener) => listener !== entry);
    };
  }

  /** Called once when the agent closes (the kernel uses it for `agentClosed`); returns a disposer. */
  onClose(listener: () => void): Disposer {
    this.#closeListeners.add(listener);
    return () => void this.#closeListeners.delete(listener);
  }

  /**
   * Sets (or, with `undefined`, removes) the wrappers around this agent's
   * runs, model calls, tool calls and compactions (a tracer's spans); idle only.
   */
  setInstrumentation(instrumentation: AgentInstrumentation | undefined): void {
    this.#assertIdle('setInstrumentation()');
    this.#instrumentation = instrumentation;
  }

  /** Replaces the model stream function; idle only. */
  setStreamFn(streamFn: ModelStreamFn): void {
    this.#assertIdle('setStreamFn()');
    if (typeof streamFn !== 'function') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'setStreamFn() needs a function');
    this.#streamFn = streamFn;
  }

  /** Switches the model for the next prompt; idle only. */
  setModel(model: string): void {
    this.#assertIdle('setModel()');
    if (typeof model !== 'string' || model.length === 0) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'setModel() needs a model id');
    this.#config = { ...this.#config, model };
  }

  /** The current model's metadata from the stream function, when it declares any. */
  resolveModel(): ModelInfo | undefined {
    try {
      return this.#streamFn.resolveModel?.(this.#config.model);
    } catch (error) {
      throw new XdogError(ErrorCodes.MODEL_FAILED, `resolving metadata for ${this.#config.model} failed: ${describeError(error)}`, { cause: error });
    }
  }

  // ---- skills ------------------------------------------------------------

  /** The skill index (`options.skills`), if any. */
  get skills(): SkillRepo | undefined {
    return this.#skills.repo;
  }

  /** Active skills: session ones (system prompt), then this run's and the pending turn ones. */
  get activeSkills(): readonly ActiveSkill[] {
    return this.#skills.active;
  }

  /**
   * Activates skills by slug, all or nothing. "session" replaces the session
   * skills (idle only); "turn" sets the skills of the next run only, consumed
   * when it ends however it ends. An unknown slug fails.
   */
  setActiveSkills(slugs: readonly string[], scope: SkillScope = 'session'): void {
    if (scope === 'session') this.#assertIdle('setActiveSkills()');
    else this.#assertOpen();
    this.#skills.set(slugs, scope);
  }

  // ---- tools -------------------------------------------------------------

  /** The ordinary (local) tools. */
  get localTools(): readonly AgentTool[] {
    return Object.freeze([...this.#localTools]);
  }

  /** Local plus remote tools; a name that is both fails with CONFLICT. */
  get tools(): readonly AgentTool[] {
    const remote = this.#remoteTools();
    const local = new Set(this.#localTools.map((tool) => tool.name));
    for (const tool of remote) {
      if (local.has(tool.name)) {
        throw new XdogError(ErrorCodes.CONFLICT, `tool "${tool.name}" is both a local and a remote tool`, {
          hint: 'rename or remove one of them; remote tools are namespaced by their server',
        });
      }
    }
    return Object.freeze([...this.#localTools, ...remote]);
  }

  /** The tools the model sees: all tools, or the explicit selection among them. */
  get activeTools(): readonly AgentTool[] {
    const all = this.tools;
    if (this.#selection === null) return all;
    const selected = new Set(this.#selection);
    return Object.freeze(all.filter((tool) => selected.has(tool.name)));
  }

  /** Increases whenever the active selection changes (explicitly or by pruning). */
  get toolSelectionRevision(): number {
    return this.#revision;
  }

  /** Replaces the local tools; idle only. The active selection never grows (names that vanish leave it). */
  setTools(tools: readonly AgentTool[] | ToolRepo): void {
    this.#assertIdle('setTools()');
    this.#replaceLocalTools(tools instanceof ToolRepo ? tools.tools : tools);
    this.#pruneSelection();
  }

  /** Selects the active tools (`null` = all, `[]` = none); idle only and revision-checked. */
  setActiveTools(names: readonly string[] | null, options: ActiveToolsOptions): void {
    this.#assertIdle('setActiveTools()');
    if (options?.expectedRevision !== this.#revision) {
      throw new XdogError(ErrorCodes.CONFLICT, `the tool selection changed (revision ${this.#revision}, expected ${options?.expectedRevision})`, {
        hint: 'read agent.toolSelectionRevision and agent.activeTools again, then retry',
      });
    }
    if (names !== null) {
      const known = new Set(this.tools.map((tool) => tool.name));
      const unique = new Set(names);
      if (unique.size !== names.length) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'setActiveTools() got a name twice');
      for (const name of names) {
        if (!known.has(name)) throw new XdogError(ErrorCodes.NOT_FOUND, `no tool named "${name}"`, { hint: `available: ${[...known].join(', ') || '(none)'}` });
      }
    }
    this.#selection = names === null ? null : [...names];
    this.#revision++;
    this.#toolMap = undefined;
  }

  /** Attaches (or with `undefined` detaches) the remote tool source; idle only. */
  setRemoteTools(source: RemoteToolSource | undefined): void {
    this.#assertIdle('setRemoteTools()');
    this.#remoteDisposer?.();
    this.#remoteDisposer = undefined;
    this.#remote = undefined;
    this.#toolMap = undefined;
    if (source) this.#attachRemote(source);
    this.#pruneSelection();
  }

  #replaceLocalTools(given: readonly AgentTool[]): void {
    // The injected embed tool stays through setTools(), unless the host brings its own `embed`.
    const embed = this.#embedTool;
    const tools = embed && !given.some((tool) => tool.name === embed.name) ? [...given, embed] : given;
    const names = new Set<string>();
    for (const tool of tools) {
      assertAgentTool(tool);
      if (names.has(tool.name)) throw new XdogError(ErrorCodes.CONFLICT, `two tools are named "${tool.name}"`, { hint: 'give each tool a unique name' });
      names.add(tool.name);
    }
    const previous = this.#localTools;
    this.#localTools = [...tools];
    this.#toolMap = undefined;
    try {
      void this.tools; // fails on a local/remote conflict
    } catch (error) {
      this.#localTools = previous;
      throw error;
    }
  }

  #attachRemote(source: RemoteToolSource): void {
    if (!source || typeof source.tools !== 'function') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'a remote tool source needs a tools() function');
    this.#remote = source;
    try {
      void this.tools;
    } catch (error) {
      this.#remote = undefined;
      throw error;
    }
    this.#remoteDisposer = source.onChange?.(() => this.#pruneSelection());
  }

  #remoteTools(): AgentTool[] {
    if (!this.#remote) return [];
    try {
      return [...this.#remote.tools()];
    } catch (error) {
      throw new XdogError(ErrorCodes.MCP_FAILED, `listing remote tools failed: ${describeError(error)}`, { cause: error });
    }
  }

  /** Drops selected names that no longer exist, so a tool that reappears is not re-added. */
  #pruneSelection(): void {
    if (this.#selection === null) return;
    let names: Set<string>;
    try {
      names = new Set(this.tools.map((tool) => tool.name));
    } catch {
      return; // a conflict is reported when the tools are next used
    }
    const kept = this.#selection.filter((name) => names.has(name));
    if (kept.length !== this.#selection.length) {
      this.#selection = kept;
      this.#revision++;
      this.#toolMap = undefined;
    }
  }

  // ---- queued inputs -----------------------------------------------------

  /** Queues a plain steer: admitted at the next checkpoint, after the current tool batch. */
  steer(text: string, images: readonly ImageContent[] = []): void {
    this.#assertRoomForInput();
    this.#queue.add({ text, images, lane: 'steer' });
  }

  /** Queues a plain follow-up: admitted only when the agent would otherwise stop. */
  followUp(text: string, images: readonly ImageContent[] = []): void {
    this.#assertRoomForInput();
    this.#queue.add({ text, images, lane: 'followUp' });
  }

  /** Queues an identified input in a lane; returns its immutable view. */
  queueInput(id: string, text: string, lane: InputLane, images: readonly ImageContent[] = []): QueuedInput {
    this.#assertRoomForInput();
    if (typeof id !== 'string' || id.length === 0) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'queueInput() needs a non-empty id');
    this.#queue.add({ id, text, images, lane });
    return this.#queue.pending().find((input) => input.id === id)!;
  }

  /** True while any input (steer, follow-up, identified or not) waits for a checkpoint. */
  get hasQueuedInputs(): boolean {
    return this.#queue.size > 0;
  }

  /** The identified inputs not yet consumed (queued, selected or rejected). */
  pendingInputs(): QueuedInput[] {
    return this.#queue.pending();
  }

  /** Edits (`text`), removes, or moves (`-1`/`+1`) an identified input before a checkpoint selects it. */
  changeInput(id: string, change: InputChange, argument?: string | number): QueuedInput | undefined {
    return this.#queue.change(id, change, argument);
  }

  /** Removes and returns the unconsumed identified inputs whose id starts with `prefix`; idle only. */
  drainInputs(prefix = ''): QueuedInput[] {
    this.#assertIdle('drainInputs()');
    return this.#queue.drain(prefix);
  }

  /**
   * Inputs set aside (rejected plain ones, handled receipts) count against the
   * queue capacity until the host drains them, so neither list grows unbounded.
   */
  #assertRoomForInput(): void {
    this.#assertOpen();
    const setAside = this.#rejected.length + this.#handled.length;
    if (setAside > 0 && this.#queue.size + setAside >= this.#queue.limits.count) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${setAside} rejected or handled inputs are waiting to be drained; with ${this.#queue.size} queued that is the limit of ${this.#queue.limits.count}`, {
        hint: 'call drainRejectedMessages() and drainHandledInputs() to take them',
      });
    }
  }

  /** Returns and forgets the plain steers/follow-ups an input transform rejected. */
  drainRejectedMessages(): RejectedMessage[] {
    const drained = this.#rejected;
    this.#rejected = [];
    return drained;
  }

  /** Returns and forgets the receipts of handled inputs. */
  drainHandledInputs(): HandledInput[] {
    const drained = this.#handled;
    this.#handled = [];
    return drained;
  }

  // ---- runs --------------------------------------------------------------

  /**
   * Starts a run. Text or a user message is one input; a list of messages is
   * one turn (user messages in it pass the input transform); `[]` continues
   * from the current history. Throws when the agent is busy or closed.
   * `options.system` marks the input as the host's own (a scheduled job, a
   * goal): inputTransform taps, which filter human input, do not see it.
   */
  prompt(input: PromptInput, options: PromptOptions = {}): PromptStream {
    this.#assertRoomForInput();
    if (this.#compacting) throw new XdogError(ErrorCodes.INVALID_STATE, 'the agent is compacting', { hint: 'await agent.compact() (or abort it) first' });
    if (this.#run) {
      throw new XdogError(ErrorCodes.INVALID_STATE, 'the agent is already running', {
        hint: 'use steer() or followUp() to add input, or await agent.waitForIdle() first',
      });
    }
    const prepared = this.#preparePrompt(input);
    const run = { controller: new AbortController(), system: options.system === true, buffer: new EventBuffer<AgentEvent>(LIMITS.eventBuffer) } as ActiveRun;
    this.#run = run;
    run.done = this.#instrumentation?.run ? this.#instrumentedRun(this.#instrumentation, prepared, run) : this.#execute(prepared, run);
    return new RunStream(run);
  }

  /** Requests a cooperative stop: the model stream, running tools and a running compaction see the abort signal. */
  abort(): void {
    this.#run?.controller.abort();
    this.#compacting?.abort();
  }

  /** Aborts and waits until the run (tools and hooks included) has settled. Unread events stay readable. */
  async cancelAndWait(): Promise<void> {
    this.#compacting?.abort();
    const run = this.#run;
    if (!run) return;
    run.controller.abort();
    run.buffer.unbound();
    await run.done;
  }

  /** Waits until the current run (if any) settles; does not cancel. */
  async waitForIdle(): Promise<void> {
    await this.#run?.done;
  }

  /** Cancels any run and releases the agent; idempotent. Borrowed tool sources stay open (the host owns them). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.cancelAndWait();
    this.#remoteDisposer?.();
    this.#remoteDisposer = undefined;
    this.#listeners = [];
    for (const listener of [...this.#closeListeners]) {
      try {
        listener();
      } catch {
        // A failing close observer must not keep the agent open.
      }
    }
    this.#closeListeners.clear();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #preparePrompt(input: PromptInput): PreparedPrompt {
    const now = Date.now();
    let messages: Message[];
    if (typeof input === 'string') messages = [{ role: 'user', content: input, timestamp: now }];
    else if (Array.isArray(input)) {
      messages = input.map((message, index) => {
        const parsed = MessageSchema.safeParse(message);
        if (!parsed.success) {
          throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `prompt message ${index} is invalid: ${parsed.error.issues[0]?.message ?? 'bad shape'}`);
        }
        return parsed.data;
      });
      if (messages.length === 0 && this.#messages.length === 0) {
        throw new XdogError(ErrorCodes.INVALID_STATE, 'prompt([]) continues a conversation, but there is none', { hint: 'send a first prompt' });
      }

    } else {
      const parsed = UserMessageSchema.safeParse(input);
      if (!parsed.success) {
        throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `prompt() takes text, a user message or a message list: ${parsed.error.issues[0]?.message ?? 'bad shape'}`);
      }
      messages = [parsed.data];
    }
    for (const message of messages) if (message.role === 'user') checkMessageText(textOf(message));
    if (messages[0] && messages[0].role !== 'toolResult' && unansweredCalls(this.#messages).length > 0) {
      throw new XdogError(ErrorCodes.INVALID_STATE, 'the last tool calls have no results yet', { hint: 'prompt([]) runs them first' });
    }
    if (messages.some((message) => message.role !== 'user')) {
      // History is always paired; a list that adds assistant or tool messages must keep it so.
      const problem = findPairingProblem([...this.#messages, ...messages]);
      if (problem) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the prompt's messages break the conversation: ${problem}`, { hint: 'give every tool call its tool result, in order' });
    }
    return messages;
  }

  /** Buffers `event`, then tells the listeners; returns a promise only when the buffer is full and the run must wait. */
  #emit(run: ActiveRun, event: AgentEvent): Promise<void> | undefined {
    const waiting = run.buffer.put(event);
    if (waiting) return waiting.then(() => this.#notify(event));
    this.#notify(event);
    return undefined;
  }

  #notify(event: AgentEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // Listeners observe; one that throws must not break the run.
      }
    }
  }

  async #commitInput(run: ActiveRun, message: Message, commit: (message: Message) => void): Promise<void> {
    await this.#emit(run, { type: 'message_start', message });
    await this.#emit(run, { type: 'message_end', message });
    commit(message);
  }

  /** Admits the prompt's messages; returns a terminal status when nothing may reach the model. */
  async #admitPrompt(
    run: ActiveRun,
    messages: PreparedPrompt,
    commit: (message: Message) => void,
  ): Promise<{ status: RunStatus; reason?: string } | undefined> {
    const admitted: Message[] = [];
    let handled = 0;
    for (const message of messages) {
      if (message.role !== 'user' || run.system) {
        admitted.push(message);
        continue;
      }
      const text = textOf(message);
      const images = imagesOf(message);
      const decision = await runInputTransform(this.hooks, { text, images: describeImages(images), source: 'prompt' });
      if (decision.action === 'reject') return { status: 'rejected', reason: decision.reason };
      if (decision.action === 'handled') {
        handled++;
        const receipt: HandledInput = { source: 'prompt', text, images, feedback: decision.feedback };
        this.#handled.push(receipt);
        await this.#emit(run, { type: 'input_handled', receipt });
        continue;
      }
      admitted.push(decision.text === text ? message : withText(message, decision.text));
    }
    if (handled > 0 && admitted.length === 0) return { status: 'handled' };
    if (run.controller.signal.aborted) return { status: 'aborted' };
    for (const message of admitted) await this.#commitInput(run, message, commit);
    return undefined;
  }

  /** Admits at most one queued input of `lane` (ONE_AT_A_TIME); refused and handled ones are set aside. */
  async #admitQueued(run: ActiveRun, lane: InputLane, commit: (message: Message) => void): Promise<boolean> {
    for (;;) {
      const entry: QueueEntry | undefined = this.#queue.select(lane);
      if (!entry) return false;
      const request: InputTransformRequest = { text: entry.text, images: describeImages(entry.images), source: lane, ...(entry.id === undefined ? {} : { id: entry.id }) };
      const decision = await runInputTransform(this.hooks, request);
      if (decision.action === 'reject') {
        this.#queue.reject(entry, decision.reason);
        if (entry.id === undefined) this.#rejected.push({ message: userMessage(entry.text, entry.images, Date.now()), lane, reason: decision.reason });
        continue;
      }
      if (decision.action === 'handled') {
        this.#queue.remove(entry);
        const receipt: HandledInput = { ...(entry.id === undefined ? {} : { id: entry.id }), source: lane, text: entry.text, images: entry.images, feedback: decision.feedback };
        this.#handled.push(receipt);
        await this.#emit(run, { type: 'input_handled', receipt });
        continue;
      }
      if (run.controller.signal.aborted) return false; // stays selected; released when the run settles
      this.#queue.remove(entry);
      const message = userMessage(decision.text, entry.images, Date.now());
      await this.#commitInput(run, message, commit);
      await this.#emit(run, { type: 'input_consumed', ...(entry.id === undefined ? {} : { id: entry.id }), lane, message });
      return true;
    }
  }

  /**
   * The tools the model may call now, by name, and their definitions. Without
   * a remote source they change only with setTools()/setActiveTools(), so they
   * are kept until then; a remote source is asked every turn (its list may
   * change without telling).
   */
  #activeToolMap(): { map: Map<string, ActiveTool>; definitions: ToolDefinition[] } {
    if (this.#toolMap && !this.#remote) return this.#toolMap;
    const local = new Set(this.#localTools);
    const map = new Map<string, ActiveTool>();
    for (const tool of this.activeTools) map.set(tool.name, { tool, remote: !local.has(tool) });
    const built = { map, definitions: [...map.values()].map(({ tool }) => toolDefinition(tool)) };
    this.#toolMap = this.#remote ? undefined : built;
    return built;
  }

  async #instrumentedRun(instrumentation: AgentInstrumentation, messages: PreparedPrompt, run: ActiveRun): Promise<RunOutcome> {
    let outcome: RunOutcome | undefined;
    const info = { model: this.#config.model, input: messages, system: run.system };
    await instrumented(instrumentation.run!.bind(instrumentation), info, async () => (outcome = await this.#execute(messages, run)).result);
    return outcome!;
  }

  async #execute(messages: PreparedPrompt, run: ActiveRun): Promise<RunOutcome> {
    const newMessages: Message[] = [];
    const commit = (message: Message) => {
      this.#messages.push(message);
      collectImages(message, this.#messages.length - 1, this.#images);
      newMessages.push(message);
      if (message.role === 'assistant') this.#usage = addUsage(this.#usage, message.usage);
    };
    const emit = (event: AgentEvent) => this.#emit(run, event);
    const streamFn = this.#streamFn;
    const config = this.#config;
    let outcome: RunOutcome;
    try {
      this.#skills.beginTurn();
      await emit({ type: 'agent_start' });
      const refused = await this.#admitPrompt(run, messages, commit);
      if (refused) {
        outcome = { result: { status: refused.status, newMessages, ...(refused.reason === undefined ? {} : { errorMessage: refused.reason }) } };
      } else {
        // One turn's request: the tools, skills and context hook applied to history.
        const turnRequest = (turn: number) => {
          const tools = this.#activeToolMap();
          const placed = this.#skills.apply({ systemPrompt: config.systemPrompt, messages: this.#messages });
          const context = buildModelContext({
            model: config.model,
            systemPrompt: placed.systemPrompt,
            turn,
            messages: placed.messages,
            // Skill placement rewrites text only, so the images stay where history has them.
            images: this.#images,
            tools: tools.definitions.slice(),
            hooks: this.hooks,
            modelInfo: this.resolveModel(),
          });
          return context instanceof Promise ? context.then((built) => ({ context: built, tools: tools.map })) : { context, tools: tools.map };
        };
        const loopConfig: AgentLoopConfig = {
          model: config.model,
          streamFn,
          ...(config.thinking === undefined ? {} : { reasoning: config.thinking }),
          signal: run.controller.signal,
          hooks: this.hooks,
          mode: config.toolExecution ?? 'parallel',
          toolCtx: this.#toolCtx,
          ...(this.#approvals ? { approvals: this.#approvals } : {}),
          ...(messages.length === 0 && unansweredCalls(this.#messages).length > 0 ? { pendingCalls: { calls: unansweredCalls(this.#messages), tools: this.#activeToolMap().map } } : {}),
          emit,
          now: Date.now,
          commit,
          ...(this.#instrumentation ? { instrumentation: this.#instrumentation } : {}),
          // Automatic compaction happens here, at a turn boundary, where history is always paired.
          buildContext: (turn) => {
            const built = () => (this.#autoCompactionDue() ? this.#autoCompact(run, 'threshold').then(() => turnRequest(turn)) : turnRequest(turn));
            const gate = this.#beforeModelCall;
            return gate ? gate(turn).then(built) : built();
          },
          afterTurn: () => (config.emitSnapshots ? emit({ type: 'snapshot', snapshot: buildSnapshot(this.#snapshotState()) }) : undefined),
          admitSteer: () => this.#queue.hasQueued('steer') && this.#admitQueued(run, 'steer', commit),
          admitFollowUp: () => this.#queue.hasQueued('followUp') && this.#admitQueued(run, 'followUp', commit),
          ...(this.#compactionConfig.retryOnOverflow ?? this.#compactionConfig.auto ? { recoverOverflow: () => this.#autoCompact(run, 'overflow') } : {}),
        };
        const ended = await runAgentLoop(loopConfig);
        const last = ended.lastMessage;
        outcome = {
          result: {
            status: ended.status,
            newMessages,
            ...(last ? { stopReason: last.stopReason } : {}),
            ...(last?.errorMessage === undefined ? {} : { errorMessage: last.errorMessage }),
          },
        };
      }
    } catch (error) {
      const failure = XdogError.is(error)
        ? error
        : new XdogError(ErrorCodes.INTERNAL, `the run failed: ${describeError(error)}`, { cause: error });
      outcome = { result: { status: 'error', newMessages, errorMessage: failure.message }, error: failure };
    }
    this.#skills.endTurn();
    this.#queue.releaseSelected();
    await emit({ type: 'agent_end', messages: this.#messages.slice() });
    this.#run = undefined;
    run.buffer.end();
    return outcome;
  }

  // ---- compaction --------------------------------------------------------

  /**
   * Replaces the older part of the history with a summary made by the
   * session's model (no tools), keeping the latest user turn and at least
   * `keepRecentTokens` of recent context verbatim. Needs an idle agent and a
   * paired history; never turns automatic compaction on. A tiny history is a
   * no-op without a model call; a veto, failure or cancellation leaves the
   * history exactly as it was (failures and cancellation reject).
   */
  async compact(instructions?: string, options: CompactOptions = {}): Promise<CompactionResult> {
    this.#assertIdle('compact()');
    if (instructions !== undefined) {
      if (typeof instructions !== 'string') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'compact() instructions must be text');
      const bytes = utf8Bytes(instructions);
      if (bytes > LIMITS.compactionInstructionsBytes) {
        throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `compaction instructions are ${bytes} bytes, over the limit of ${LIMITS.compactionInstructionsBytes}`, { hint: 'give a shorter focus' });
      }
    }
    const problem = findPairingProblem(this.#messages);
    if (problem) throw new XdogError(ErrorCodes.INVALID_STATE, `compact() needs a paired history: ${problem}`, { hint: 'answer every tool call first' });
    const controller = new AbortController();
    const forward = () => controller.abort();
    options.signal?.addEventListener('abort', forward, { once: true });
    if (options.signal?.aborted) controller.abort();
    this.#compacting = controller;
    const notify = (event: AgentEvent) => void this.#notify(event);
    try {
      return await this.#compactWith('manual', controller.signal, notify, instructions?.trim() || undefined);
    } finally {
      options.signal?.removeEventListener('abort', forward);
      this.#compacting = undefined;
    }
  }

  /**
   * Where `compact()` would cut now, or undefined when it would be a no-op
   * (a single turn, or less than keepRecentTokens). Makes no model call.
   */
  compactionPlan(): CompactionPlan | undefined {
    return planCompaction(this.#messages, {
      keepRecentTokens: this.#compactionConfig.keepRecentTokens ?? COMPACTION_DEFAULTS.keepRecentTokens,
      summarized: this.#compaction !== undefined,
    });
  }

  /** The window compaction works against: the host's limit, else the model's declared one. */
  #contextWindow(): number | undefined {
    if (this.#compactionConfig.contextWindow !== undefined) return this.#compactionConfig.contextWindow;
    let info: ModelInfo | undefined;
    try {
      info = this.resolveModel();
    } catch {
      return undefined;
    }
    const window = info?.maxPromptTokens || info?.contextWindow;
    return window && window > 0 ? window : undefined;
  }

  #autoCompactionDue(): boolean {
    if (!this.#compactionConfig.auto) return false;
    const window = this.#contextWindow();
    if (window === undefined) return false;
    const reserve = this.#compactionConfig.reserveTokens ?? COMPACTION_DEFAULTS.reserveTokens;
    return contextTokens(this.#messages, this.#reliableFrom) > window - reserve;
  }

  /** A compaction inside a run; its failure is reported in events and never fails the run. True when it compacted. */
  async #autoCompact(run: ActiveRun, reason: CompactionReason): Promise<boolean> {
    try {
      const result = await this.#compactWith(reason, run.controller.signal, (event) => this.#emit(run, event));
      return result.compacted;
    } catch {
      return false;
    }
  }

  async #compactWith(
    reason: CompactionReason,
    signal: AbortSignal,
    emit: (event: AgentEvent) => Promise<void> | void,
    instructions?: string,
  ): Promise<CompactionResult> {
    await emit({ type: 'compaction_start', reason });
    let result: CompactionResult;
    try {
      const wrap = this.#instrumentation?.compaction?.bind(this.#instrumentation);
      result = await instrumented(wrap, { model: this.#config.model, reason }, () => this.#runCompaction(reason, signal, instructions));
    } catch (error) {
      const failure = XdogError.is(error) ? error : new XdogError(ErrorCodes.INTERNAL, `the compaction failed: ${describeError(error)}`, { cause: error });
      await emit({ type: 'compaction_end', reason, error: { code: failure.code, message: failure.message } });
      throw failure;
    }
    await emit({ type: 'compaction_end', reason, result });
    return result;
  }

  async #runCompaction(reason: CompactionReason, signal: AbortSignal, instructions?: string): Promise<CompactionResult> {
    const before = this.#messages.slice();
    const tokensBefore = contextTokens(before, this.#reliableFrom);
    const contextLimit = this.#contextWindow();
    const prepared = await prepareCompaction({
      messages: before,
      ...(this.#compaction ? { previous: this.#compaction } : {}),
      keepRecentTokens: this.#compactionConfig.keepRecentTokens ?? COMPACTION_DEFAULTS.keepRecentTokens,
      tokensBefore,
      ...(contextLimit === undefined ? {} : { contextLimit }),
      reason,
      ...(instructions === undefined ? {} : { instructions }),
      hooks: this.hooks,
      streamFn: this.#streamFn,
      model: this.#config.model,
      ...(this.#config.thinking === undefined ? {} : { reasoning: this.#config.thinking }),
      signal,
      now: Date.now,
      ...(this.#compactionConfig.archive ? { archive: this.#compactionConfig.archive } : {}),
      // The summary request is a model call like the loop's: the same wrapper (a chat span inside the compaction's).
      ...(this.#instrumentation?.modelCall ? { modelCall: this.#instrumentation.modelCall.bind(this.#instrumentation) } : {}),
    });
    if (prepared.kind === 'skip') return { compacted: false, reason: prepared.reason, message: prepared.message };
    if (signal.aborted) throw new XdogError(ErrorCodes.ABORTED, 'the compaction was cancelled', { hint: 'the history was left unchanged' });
    let stored: { recoveryBranchId?: string } | void = undefined;
    if (this.#compactionConfig.persist) {
      try {
        stored = await this.#compactionConfig.persist({
          reason,
          automatic: reason !== 'manual',
          messagesBefore: structuredClone(before),
          messagesAfter: structuredClone(prepared.messages),
          firstKeptIndex: prepared.firstKeptIndex,
          state: structuredClone(prepared.state),
          tokensBefore,
          tokensAfter: prepared.tokensAfter,
        });
      } catch (error) {
        throw new XdogError(XdogError.is(error) ? error.code : ErrorCodes.INTERNAL, `storing the compaction failed: ${describeError(error)}`, {
          cause: error,
          hint: 'the history was left unchanged',
        });
      }
    }
    // Nothing appended to history meanwhile: prompts are refused during compact(), and a run waits for its own compaction.
    this.#messages = prepared.messages;
    this.#images = findImages(this.#messages);
    this.#compaction = prepared.state;
    this.#reliableFrom = this.#messages.length;
    const recoveryBranchId = stored && typeof stored.recoveryBranchId === 'string' ? stored.recoveryBranchId : undefined;
    const result: CompactionResult = {
      compacted: true,
      reason,
      summary: prepared.state.summary,
      ...(prepared.state.details === undefined ? {} : { details: structuredClone(prepared.state.details) }),
      custom: prepared.custom,
      firstKeptIndex: prepared.firstKeptIndex,
      before: before.length,
      after: this.#messages.length,
      tokensBefore,
      tokensAfter: prepared.tokensAfter,
      count: prepared.state.count,
      ...(recoveryBranchId === undefined ? {} : { recoveryBranchId }),
    };
    for (const tap of snapshotTaps(this.hooks.compact)) {
      try {
        await tap.call({
          before: result.before,
          after: result.after,
          summary: result.summary,
          ...(result.details === undefined ? {} : { details: structuredClone(result.details) }),
          tokensBefore,
          tokensAfter: result.tokensAfter,
          automatic: reason !== 'manual',
          reason,
          ...(recoveryBranchId === undefined ? {} : { recoveryBranchId }),
        });
      } catch {
        // The compaction is committed; an observer that fails cannot undo it.
      }
    }
    return result;
  }

  // ---- snapshots ---------------------------------------------------------

  #snapshotState(): SnapshotState {
    return {
      model: this.#config.model,
      ...(this.#config.systemPrompt === undefined ? {} : { systemPrompt: this.#config.systemPrompt }),
      ...(this.#config.thinking === undefined ? {} : { thinking: this.#config.thinking }),
      usage: this.#usage,
      messages: this.#messages,
      skills: this.#skills.bindings(),
      ...(this.#compaction ? { compaction: this.#compaction } : {}),
    };
  }

  /** A versioned JSON snapshot of the conversation; idle only. Tools, hooks and policy are not in it. */
  dump(): AgentSnapshot {
    this.#assertIdle('dump()');
    return buildSnapshot(this.#snapshotState());
  }

  /**
   * Adopts a snapshot atomically: validated first (schema, tool pairing,
   * model among `allowedModels`), nothing changes on failure, no model or
   * tool runs. The host's system prompt, tools and hooks stay as they are.
   */
  restore(snapshot: unknown, options: RestoreOptions = {}): void {
    this.#assertIdle('restore()');
    const parsed = parseSnapshot(snapshot, options, this.#config.model);
    this.#adopt(parsed.model, parsed.usage, parsed.messages, parsed.skills, parsed.compaction);
  }

  /** The metadata half of a split snapshot (pair it with `encodeSnapshotMessages(agent.messages)`); idle only. */
  dumpMetadata(): SnapshotMetadata {
    this.#assertIdle('dumpMetadata()');
    return buildMetadata(this.#snapshotState());
  }

  /** Adopts a split snapshot atomically; the same checks as `restore()`, plus count and digest. */
  restoreParts(metadata: unknown, messages: readonly unknown[], options: RestoreOptions = {}): void {
    this.#assertIdle('restoreParts()');
    const parsed = parseParts(metadata, messages, options, this.#config.model);
    this.#adopt(parsed.metadata.model, parsed.metadata.usage, parsed.messages, parsed.metadata.skills, parsed.metadata.compaction);
  }

  /** Saved skill bindings are checked against this agent's index before anything changes; without them the active skills stay. */
  #adopt(model: string, usage: Usage, messages: Message[], skills?: SkillBindings, compaction?: CompactionState): void {
    const adoptSkills = skills && this.#skills.prepareRestore(skills);
    this.#config = { ...this.#config, model };
    this.#usage = { ...usage };
    this.#messages = messages;
    this.#images = findImages(messages);
    this.#compaction = compaction && structuredClone(compaction);
    // Saved usage of a compacted history may predate the compaction: estimate instead.
    this.#reliableFrom = compaction ? messages.length : 0;
    adoptSkills?.();
  }

  // ---- guards ------------------------------------------------------------

  #assertOpen(): void {
    if (this.#closed) throw new XdogError(ErrorCodes.CLOSED, 'the agent is closed', { hint: 'create a new Agent' });
  }

  #assertIdle(what: string): void {
    this.#assertOpen();
    if (this.#compacting) throw new XdogError(ErrorCodes.INVALID_STATE, `${what} needs an idle agent, and a compaction is running`, { hint: 'await agent.compact() (or abort it) first' });
    if (this.#run) throw new XdogError(ErrorCodes.INVALID_STATE, `${what} needs an idle agent`, { hint: 'await agent.waitForIdle() (or cancelAndWait()) first' });
  }
}
