/**
 * One group's runtime: its active session, the live agent for it, the run in
 * progress and the inputs waiting for it. Runs are serialized per group; a
 * prompt that arrives while the group is busy waits in a FIFO. Controls that
 * change the session (navigation, rename, model, thinking) need an idle
 * group and the active-session id the client saw, so a stale control is
 * refused instead of being applied to whatever replaced that session.
 */
import { randomBytes } from 'node:crypto';
import {
  COMPACTION_DEFAULTS,
  ErrorCodes,
  SkillRepo,
  ToolContribution,
  XdogError,
  buildMetadata,
  costFunction,
  defaultTools,
  describeError,
  estimateMessageTokens,
  modelRegistryFor,
  telemetryOf,
  thinkingProblem,
  zeroUsage,
  type Agent,
  type AgentEvent,
  type AgentTool,
  type CompactionConfig,
  type CompactionRecord,
  type CompactionResult,
  type ClawGroupConfig,
  type Clock,
  type ImageContent,
  type Kernel,
  type Message,
  type ModelRegistry,
  type ModelCallInfo,
  type ModelStreamFn,
  type ResolvedModel,
  type RunEndedInfo,
  type RunInputSource,
  type RunStartingInfo,
  type Usage,
  type UserMessage,
} from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { backoffMs } from './wakeups.js';
import type { GroupRecord, SessionRecord, SessionStore, SystemInputSource } from '../sessions/tokens.js';
import { compactionPolicy } from './compaction-policy.js';
import { groupSandboxLine } from './group-sandbox.js';
import { describeMemoryFlush, runMemoryFlush } from './memory-flush.js';
import { Notifications, type CompactionReceipt, type GroupStatus, type PromptReceipt, type QueueItem } from './protocol.js';
import { SessionWriter } from './session-writer.js';
import { CLAW_TURN_WRITES_TOOL_CTX, TurnWrites, bindTurnWrites, turnWritesOfAgent } from './turn-writes.js';
import { CLAW_SESSION_TOOL_CTX } from './services.js';
import { toWireEvent } from './wire-event.js';
import { observeQueueDepth, traceGroupRun, type RunTrace } from './run-trace.js';

/**
 * What a control changes, so a guard can hold back only what conflicts with it:
 * `navigation` changes which session or point of it is active (new, resume,
 * fork, branch, goto, archive, an automatic reset); `tighten` narrows what tool
 * calls may do (read-only on, plan start or revise); `loosen` widens it
 * (read-only off, plan execute or stop, an extension reload or unload);
 * `session` changes the active session in place (name, model, thinking, compact).
 */
export type ControlKind = 'navigation' | 'tighten' | 'loosen' | 'session';

/** Why a control of that kind must wait, with what to do about it; undefined lets it run. */
export type ControlGuard = (kind: ControlKind) => ControlRefusal | undefined | Promise<ControlRefusal | undefined>;

export interface ControlRefusal {
  reason: string;
  hint: string;
}

export interface GroupRuntimeOptions {
  name: string;
  config: ClawGroupConfig;
  /** The absolute workspace directory. */
  workspace: string;
  /** The group's own kernel (its tools work in the workspace). */
  kernel: Kernel;
  store: SessionStore;
  clock: Clock;
  publish(sessionId: string | null, method: string, params: unknown): void;
  /** Told when a run ended (after its writes settled); must not throw. */
  onRunEnded?(info: RunEndedInfo): void;
  /** Prepares the session's agent right before a run's input goes to it; a rejection fails the run. */
  onRunStarting?(info: RunStartingInfo): Promise<void>;
  /** Asked before each model call of a run; a rejection (an XdogError) refuses the call and ends the run with it. */
  beforeModelCall?(info: ModelCallInfo): Promise<void>;
  log(line: string): void;
}

/** Follows one prompt's run for the caller that sent it (a channel sends each reply as it completes). */
export interface RunObserver {
  /** Each agent event of the run, once it is durable; must not throw. */
  event?(event: AgentEvent): void;
  /** The run ended, or the prompt left the queue without running (`removed`, `dropped`); must not throw. */
  ended?(outcome: { status: string; errorMessage?: string }): void;
}

interface PendingPrompt {
  id: string;
  text: string;
  images: ImageContent[];
  /** A prompt's idempotency key (for the run log). */
  key?: string;
  /** Set for a system input: where it came from, the session it runs in, and who waits for its end. */
  system?: { source: SystemInputSource; sessionId?: string; settle(result: SystemRunResult): void };
  observer?: RunObserver;
  /** Where it came from, for the run's span (with the trace it joins). */
  trace?: RunTrace;
  /** Set for a run resumed from the stored transcript (its last calls waited for an approval): no new input, `prompt([])`. */
  resume?: true;
}

/** An input from the host itself (a scheduled job), not from a person. */
export interface SystemInput {
  text: string;
  /** Stored with the input in the transcript. */
  source: SystemInputSource;
  /** A session of this group to run in (an isolated session); default: the active one, created when there is none. */
  sessionId?: string;
}

/** How a system input's run ended. */
export interface SystemRunResult {
  inputId: string;
  sessionId: string;
  /** A run status ("completed", "error", "aborted", ...), or "dropped" when the group closed before it ran. */
  status: string;
  errorMessage?: string;
  /** Tokens of the run's model calls. */
  usage: Usage;
  /** Epoch ms, from the gateway's clock. */
  startedAt: number;
  endedAt: number;
}

interface LiveSession {
  sessionId: string;
  agent: Agent;
  writer: SessionWriter;
  /** What the store wrote for the latest compaction of this agent (its receipt reads it). */
  lastCompaction?: { compactionEntryId: number; recoveryBranchId: number; label: string };
}

interface ActiveRun {
  /** The id of the prompt that started it (also in its receipt and its events). */
  inputId: string;
  /** Where that input came from. */
  source: RunInputSource;
  sessionId: string;
  startedAt: number;
  done: Promise<void>;
  observer?: RunObserver;
}

/** The inputs a runtime holds for its agent: the same bounds as the runtime queue. */
/** True when `error`, or what caused it (a hook or a writer wraps it), is the store being unreachable (sessions/sql.ts marks it). */
function storeUnreachable(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 6; current = (current as { cause?: unknown }).cause, depth++) {
    if (XdogError.is(current, ErrorCodes.UNAVAILABLE) && current.details?.unreachable === true) return true;
  }
  return false;
}

const INPUT_LIMITS = { count: LIMITS.clawQueuedInputs, bytes: LIMITS.clawInputBytes };

export class GroupRuntime {
  readonly name: string;
  readonly #options: GroupRuntimeOptions;
  readonly #registry: ModelRegistry;
  #group!: GroupRecord;
  #live?: LiveSession;
  #run?: ActiveRun;
  /** Held by a run (until its writes settled) or a control; never both. */
  #reserved = false;
  readonly #prompts: PendingPrompt[] = [];
  /**
   * Idempotency keys of prompts this runtime acknowledged whose keys are not in the store yet (queued,
   * or running before their user message committed). Only the group's owner admits prompts, so this
   * and the store together know every admitted key; the store's unique key is the last word.
   */
  readonly #admittedKeys = new Set<string>();
  readonly #controlGuards: ControlGuard[] = [];
  #nextInputId = 1;
  /** Makes this runtime's input ids unique across owners: a client following p3 of a worker that died must not take the next owner's p3 for it. */
  readonly #inputIdTag = randomBytes(3).toString('hex');
  #closed = false;
  /** Why the runs were ended (the gateway stopped, the group moved): a run cut by it ends `interrupted`, not `aborted`. */
  #endedBecause?: string;
  /** A client asked the current run to stop (its end is then `aborted`, even while the runs are being ended). */
  #abortAsked = false;
  #released?: Promise<void>;
  #kernelClosed = false;
  #creatingFirst?: Promise<string>;
  /** Prompts between their checks and their start: a control must not change the session under them. */
  #accepting = 0;
  /** Set while a compaction (manual or before a turn) runs, so `abort` cancels it and its memory flush. */
  #compacting?: AbortController;
  #skills?: SkillRepo;
  /** Prices each ledger row (core/model/prices.ts). */
  readonly #cost: (model: string, usage: Usage) => number | null;
  #stopQueueGauge?: () => void;

  constructor(options: GroupRuntimeOptions) {
    this.name = options.name;
    this.#options = options;
    this.#registry = modelRegistryFor(options.kernel);
    this.#cost = costFunction(options.kernel.config);
  }

  /** Loads the group row and closes tool calls a crash interrupted, so the next request never carries an unpaired call. */
  async init(): Promise<void> {
    // A group whose model or tools cannot be served fails the start, not its first prompt.
    this.resolveModel(this.#options.config.model);
    selectTools(this.#options.kernel.getAll(ToolContribution), this.#options.config.enabled_tools, this.name);
    // The kernel is open now, so its telemetry (if any) is there.
    const telemetry = telemetryOf(this.#options.kernel);
    if (telemetry && !this.#stopQueueGauge) this.#stopQueueGauge = observeQueueDepth(telemetry, this.name, () => this.#pendingCount());
    this.#group = await this.#options.store.ensureGroup(this.name);
    const active = this.#group.activeSessionId;
    if (active) {
      let closed: readonly unknown[];
      try {
        closed = await this.#options.store.closeInterruptedToolCalls(active);
      } catch (error) {
        // A damaged session is refused request by request (each says STORE_CORRUPT); the group and the gateway's other groups are still served.
        if (!XdogError.is(error, ErrorCodes.STORE_CORRUPT)) throw error;
        this.#options.log(`group ${this.name}: the active session cannot be read, its requests are refused until the store is restored: ${describeError(error)}`);
        return;
      }
      if (closed.length) this.#options.log(`group ${this.name}: session ${active}: ${closed.length} interrupted tool call(s) closed with an "interrupted" result`);
    }
  }

  get activeSessionId(): string | null {
    return this.#group.activeSessionId;
  }

  /** True once the gateway ends this group's runs (stopping, handing the group over): a run cut now was not aborted by anyone. */
  get ending(): boolean {
    return this.#endedBecause !== undefined;
  }

  /**
   * Queues a run that continues the active session from its stored
   * transcript, whose last tool calls have no results yet (they waited for
   * an approval when the gateway stopped): the calls run, then the next model
   * call. It goes first in the queue, so prompts wait behind it.
   */
  resume(): void {
    this.#assertOpen();
    const pending: PendingPrompt = { id: this.#newInputId('p'), text: '', images: [], resume: true };
    if (this.#reserved) this.#prompts.unshift(pending);
    else this.#startRun(pending);
  }

  /** The group's own kernel (services reach the group's plugins through it). */
  get kernel(): Kernel {
    return this.#options.kernel;
  }

  /** The group's tools as its agent gets them (children pick theirs from these). */
  tools(): AgentTool[] {
    return selectTools(this.#options.kernel.getAll(ToolContribution), this.#options.config.enabled_tools, this.name);
  }

  /**
   * The skills the group's sessions may select: those installed plugins
   * package and the config's `skills.dirs` (relative ones resolve against the
   * workspace). Indexed on first use; bodies are read when selected.
   */
  get skills(): SkillRepo {
    this.#skills ??= SkillRepo.fromConfig(this.#options.kernel.config, this.#options.workspace);
    return this.#skills;
  }

  /** The group's automatic compaction policy (its `compaction` settings), without its sessions' persist; children compact by it. */
  compactionPolicy(): CompactionConfig {
    return compactionPolicy(this.#options.config.compaction);
  }

  /** The model access the group's agent uses (children share it). */
  get streamFn(): ModelStreamFn {
    return this.#registry.streamFn;
  }

  /** Adds a check that refuses the controls it answers a reason for (by their kind); services add these (children ask the store). */
  addControlGuard(guard: ControlGuard): void {
    this.#controlGuards.push(guard);
  }

  get busy(): boolean {
    return this.#reserved || this.#prompts.length > 0 || this.#accepting > 0;
  }

  status(): GroupStatus {
    return {
      name: this.name,
      workspace: this.#options.workspace,
      model: this.#options.config.model,
      activeSessionId: this.#group.activeSessionId,
      revision: this.#group.revision,
      busy: this.busy,
      runStartedAt: this.#run?.startedAt ?? null,
      queued: this.#pendingCount(),
      sandbox: groupSandboxLine(this.#options.kernel.config, this.name, this.#options.workspace),
    };
  }

  // ---- inputs ------------------------------------------------------------

  /** Runs a prompt now, or queues it behind the running turn. A repeated idempotency key is acknowledged and not run again. */
  async prompt(text: string, images: ImageContent[], idempotencyKey: string, expectedSessionId?: string, observer?: RunObserver, trace?: RunTrace): Promise<PromptReceipt> {
    this.#assertOpen();
    if (expectedSessionId !== undefined) this.#assertExpected(expectedSessionId);
    if (this.#pendingCount() >= LIMITS.clawQueuedInputs) throw this.#queueFull();
    this.#accepting++;
    let sessionId: string;
    let fresh: boolean;
    try {
      sessionId = this.#group.activeSessionId ?? (await this.#createFirstSession());
      // Admitted here, not stored yet: its key commits with its user message (or at its run's end), so a copy meanwhile is known from memory.
      if (this.#admittedKeys.has(idempotencyKey)) return { status: 'duplicate', group: this.name, sessionId };
      this.#admittedKeys.add(idempotencyKey);
      try {
        fresh = !(await this.#options.store.hasInputKey(this.name, idempotencyKey));
      } catch (error) {
        this.#admittedKeys.delete(idempotencyKey);
        throw error;
      }
    } finally {
      this.#accepting--;
    }
    if (!fresh) {
      this.#admittedKeys.delete(idempotencyKey);
      return { status: 'duplicate', group: this.name, sessionId };
    }
    const pending: PendingPrompt = { id: this.#newInputId('p'), text, images, key: idempotencyKey, ...(observer ? { observer } : {}), ...(trace ? { trace } : {}) };
    if (this.#reserved || this.#prompts.length > 0) {
      this.#prompts.push(pending);
      this.#publishState();
      return { status: 'queued', group: this.name, sessionId, inputId: pending.id };
    }
    this.#startRun(pending);
    return { status: 'started', group: this.name, sessionId, inputId: pending.id };
  }

  /**
   * Runs a system input (a scheduled job's prompt). It waits its turn in the
   * group's FIFO like a prompt and follows the group's tools, but skips the
   * inputTransform taps (they filter human input) and is labelled in the
   * transcript. Resolves when its run ended, with its status and usage.
   */
  async runSystem(input: SystemInput): Promise<SystemRunResult> {
    this.#assertOpen();
    if (Buffer.byteLength(input.text) > LIMITS.clawInputBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `a system input of group ${this.name} has ${Buffer.byteLength(input.text)} bytes, over the limit of ${LIMITS.clawInputBytes}`);
    }
    if (this.#pendingCount() >= LIMITS.clawQueuedInputs) throw this.#queueFull();
    if (input.sessionId === undefined && !this.#group.activeSessionId) {
      this.#accepting++;
      try {
        await this.#createFirstSession();
      } finally {
        this.#accepting--;
      }
    }
    return new Promise<SystemRunResult>((settle) => {
      const pending: PendingPrompt = { id: this.#newInputId('y'), text: input.text, images: [], system: { source: input.source, sessionId: input.sessionId, settle } };
      if (this.#reserved || this.#prompts.length > 0) {
        this.#prompts.push(pending);
        this.#publishState();
      } else this.#startRun(pending);
    });
  }

  /** Queues a steer (admitted at the next checkpoint) or a follow-up (after the tools and steers) into the running turn. */
  queueInput(lane: 'steer' | 'followUp', text: string, images: ImageContent[], expectedSessionId?: string): { inputId: string } {
    this.#assertOpen();
    if (expectedSessionId !== undefined) this.#assertExpected(expectedSessionId);
    const live = this.#live;
    if (!this.#run || !live) {
      throw new XdogError(ErrorCodes.INVALID_STATE, `nothing is running in group ${this.name}, so there is nothing to ${lane === 'steer' ? 'steer' : 'follow up'}`, {
        hint: 'send it as a prompt instead',
      });
    }
    if (this.#pendingCount() >= LIMITS.clawQueuedInputs) throw this.#queueFull();
    const inputId = this.#newInputId(lane === 'steer' ? 's' : 'f');
    live.agent.queueInput(inputId, text, lane, images);
    this.#publishState();
    return { inputId };
  }

  queueList(): QueueItem[] {
    const prompts: QueueItem[] = this.#prompts.map((item) => ({ id: item.id, lane: 'prompt', text: item.text, images: item.images.length, state: 'queued' }));
    const inputs: QueueItem[] = (this.#live?.agent.pendingInputs() ?? []).map((input) => ({
      id: input.id,
      lane: input.lane,
      text: input.text,
      images: input.images.length,
      state: input.state,
    }));
    return [...inputs, ...prompts];
  }

  /** Edits, removes or moves (within its lane) one pending input that has not been taken yet. */
  queueChange(id: string, change: { edit: string } | { remove: true } | { move: 'up' | 'down' }): QueueItem[] {
    const index = this.#prompts.findIndex((item) => item.id === id);
    if (index >= 0 && this.#prompts[index]!.system) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `input ${id} is a system input (${this.#prompts[index]!.system!.source.origin} ${this.#prompts[index]!.system!.source.id}); it cannot be changed in the queue`, {
        hint: 'pause or remove what sent it (e.g. `xdog claw schedule pause`)',
      });
    }
    if (index >= 0) {
      if ('edit' in change) this.#prompts[index] = { ...this.#prompts[index]!, text: change.edit };
      else if ('remove' in change) {
        const [removed] = this.#prompts.splice(index, 1);
        // Never ran, so its key was never stored: the same key may be sent again.
        if (removed!.key) this.#admittedKeys.delete(removed!.key);
        this.#tellEnded(removed!.observer, { status: 'removed' });
      }
      else {
        const target = index + (change.move === 'up' ? -1 : 1);
        if (target < 0 || target >= this.#prompts.length) {
          throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `input ${id} is already at the ${change.move === 'up' ? 'front' : 'back'} of the prompt queue`);
        }
        [this.#prompts[index], this.#prompts[target]] = [this.#prompts[target]!, this.#prompts[index]!];
      }
    } else {
      const agent = this.#live?.agent;
      if (!agent) throw new XdogError(ErrorCodes.NOT_FOUND, `no pending input "${id}" in group ${this.name}`, { hint: 'it may already have been taken; list the queue again' });
      if ('edit' in change) agent.changeInput(id, 'edit', change.edit);
      else if ('remove' in change) agent.changeInput(id, 'remove');
      else agent.changeInput(id, 'move', change.move === 'up' ? -1 : 1);
    }
    this.#publishState();
    return this.queueList();
  }

  /** Asks the running turn, or a running `compact`, to stop (waiting prompts stay queued). */
  abort(): { aborted: boolean } {
    if ((!this.#run && !this.#compacting) || !this.#live) return { aborted: false };
    this.#abortAsked = true;
    this.#compacting?.abort();
    this.#live.agent.abort();
    return { aborted: true };
  }

  /**
   * Cancels a running compaction only (`compact.cancel`), never a turn: the
   * memory flush and the summary call stop, nothing is written, and the
   * `session.compact` caller gets ABORTED. False when no compaction runs.
   */
  cancelCompaction(): { cancelled: boolean } {
    // The flush and the summary call both take this signal; an automatic compaction's turn then runs uncompacted.
    if (!this.#compacting || this.#compacting.signal.aborted) return { cancelled: false };
    this.#compacting.abort();
    return { cancelled: true };
  }

  // ---- controls ------------------------------------------------------------

  /**
   * Runs a state-changing control of `kind`: refused (BUSY) unless the group
   * is idle, or while a guard holds that kind back, and refused (STALE)
   * unless `expected` is still the active session. The live agent is rebuilt
   * from the store afterwards.
   */
  async control<T>(expected: string | null, change: () => Promise<T>, kind: ControlKind): Promise<T> {
    this.#assertOpen();
    // The guards may ask the store; the idle check below and the reservation follow them with no await between.
    for (const guard of this.#controlGuards) {
      const refusal = await guard(kind);
      if (refusal) throw new XdogError(ErrorCodes.BUSY, `group ${this.name}: ${refusal.reason}`, { hint: refusal.hint });
    }
    this.#assertOpen();
    if (this.busy) {
      throw new XdogError(ErrorCodes.BUSY, `group ${this.name} is busy (${this.#run ? 'a turn is running' : 'another control is running'}${this.#prompts.length ? `, ${this.#prompts.length} prompt(s) waiting` : ''})`, {
        hint: 'wait until it is idle, or abort the turn first',
      });
    }
    this.#assertExpected(expected);
    this.#reserved = true;
    try {
      const result = await change();
      await this.#dropLive();
      this.#group = await this.#options.store.getGroup(this.name);
      return result;
    } finally {
      this.#reserved = false;
      this.#publishState();
      this.#startNext();
    }
  }

  /** Resolves a model id for this group's sessions; unknown models are refused, never replaced. */
  resolveModel(model: string): ResolvedModel {
    return this.#registry.resolve(model);
  }

  /**
   * What `models.list` answers: the models the registry lists (with their
   * thinking levels) and the providers that take any model id, so a picker
   * shows what can be chosen without inventing a list.
   */
  modelCatalog(): ModelCatalog {
    const registry = this.#registry;
    const models = registry.models().map((info) => ({
      model: `${info.provider}/${info.id}`,
      ...(info.name ? { name: info.name } : {}),
      ...(info.contextWindow ? { contextWindow: info.contextWindow } : {}),
      ...(info.reasoningEfforts ? { reasoningEfforts: info.reasoningEfforts } : {}),
      ...(info.input ? { input: info.input } : {}),
    }));
    return { models, anyModel: registry.providers().filter((provider) => registry.acceptsAnyModel?.(provider) === true) };
  }

  /**
   * Staged navigation: the model a session was saved with, resolved before a
   * navigation makes it (or a branch of it) active. A model no provider serves
   * now is refused here, with nothing changed, instead of failing at the next run.
   */
  async checkSessionModel(sessionId: string): Promise<ResolvedModel> {
    const { model } = await this.#options.store.getState(sessionId);
    try {
      return this.resolveModel(model);
    } catch (error) {
      if (!(error instanceof XdogError)) throw error;
      throw new XdogError(error.code, `session ${sessionId} was saved with model ${model}, which this gateway cannot serve (${error.message}); nothing was changed`, {
        hint: `configure its provider (providers: in config.yaml) and restart the gateway, or open another session${error.hint ? `; ${error.hint}` : ''}`,
        cause: error,
      });
    }
  }

  /** Checks a thinking level against a model's declared levels. */
  checkThinking(level: string, model: string): void {
    const problem = thinkingProblem(level, this.resolveModel(model));
    if (problem) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, problem.message, { hint: problem.hint });
  }

  /** A new session with the group's configured model, thinking and skills (not the previous session's). */
  newSessionOptions(name?: string | null): { model: string; thinking: string | null; skills: string[]; name: string | null; activate: true } {
    const { config } = this.#options;
    return { model: this.resolveModel(config.model).qualified, thinking: config.thinking ?? null, skills: config.skills ?? [], name: name ?? null, activate: true };
  }

  // ---- compaction ----------------------------------------------------------

  /**
   * Compacts the active session now (an idle group only): the memory flush
   * first (when the group has memory_write), then the summary; the store
   * writes the recovery branch and the compaction in one transaction.
   */
  async compact(expected: string | null, focus: string | undefined): Promise<CompactionReceipt> {
    return this.control(
      expected,
      async () => {
        const sessionId = this.#group.activeSessionId;
        if (!sessionId) throw new XdogError(ErrorCodes.NOT_FOUND, `group ${this.name} has no active session to compact`, { hint: 'send a prompt first' });
        return this.#compactLive(await this.#liveSession(sessionId), focus);
      },
      'session',
    );
  }

  async #compactLive(live: LiveSession, focus: string | undefined): Promise<CompactionReceipt> {
    // Only worth a model call when there is something to compact (the flush is skipped too otherwise).
    if (!live.agent.compactionPlan()) {
      return { status: 'skipped', sessionId: live.sessionId, reason: 'too-small', message: 'the history is too small to compact: it is a single turn or holds less than the recent context kept' };
    }
    const controller = new AbortController();
    this.#compacting = controller;
    let result: CompactionResult;
    try {
      await this.#memoryFlush(live, controller.signal);
      result = await live.agent.compact(focus, { signal: controller.signal });
    } finally {
      this.#compacting = undefined;
    }
    if (!result.compacted) return { status: 'skipped', sessionId: live.sessionId, reason: result.reason, message: result.message };
    const written = live.lastCompaction!;
    return {
      status: 'compacted',
      sessionId: live.sessionId,
      compactionEntryId: written.compactionEntryId,
      recoveryBranchId: written.recoveryBranchId,
      recoveryLabel: written.label,
      summary: result.summary,
      custom: result.custom,
      messagesBefore: result.before,
      messagesAfter: result.after,
      tokensBefore: result.tokensBefore,
      tokensAfter: result.tokensAfter,
    };
  }

  /**
   * Automatic compaction before a turn, when the history plus the coming input
   * passes the group's reserve; its failure is logged and the turn goes on
   * uncompacted (the agent's own check may still compact, without a flush).
   */
  async #compactBeforeTurn(live: LiveSession, input: UserMessage): Promise<void> {
    const settings = this.#options.config.compaction;
    if (settings?.auto === false) return;
    const { tokens, contextWindow } = live.agent.contextUsage();
    if (contextWindow === undefined || tokens + estimateMessageTokens(input) <= contextWindow - (settings?.reserve_tokens ?? COMPACTION_DEFAULTS.reserveTokens)) return;
    try {
      const receipt = await this.#compactLive(live, undefined);
      if (receipt.status === 'compacted') this.#options.log(`group ${this.name}: session ${live.sessionId}: compacted automatically (${receipt.tokensBefore} → ${receipt.tokensAfter} tokens, recovery branch ${receipt.recoveryBranchId})`);
    } catch (error) {
      this.#options.log(`group ${this.name}: session ${live.sessionId}: automatic compaction failed, the turn runs uncompacted: ${describeError(error)}`);
    }
  }

  /** The memory flush: best effort, never blocking the compaction. */
  async #memoryFlush(live: LiveSession, signal: AbortSignal): Promise<void> {
    const { config, kernel, store, clock } = this.#options;
    if (config.compaction?.memory_flush === false) return;
    const tool = selectTools(kernel.getAll(ToolContribution), config.enabled_tools, this.name).find((candidate) => candidate.name === MEMORY_WRITE_TOOL);
    if (!tool) return;
    try {
      const outcome = await runMemoryFlush({ kernel, streamFn: this.#registry.streamFn, source: live.agent, tool, systemPrompt: config.system_prompt, signal });
      for (const usage of outcome.usage) {
        await store.recordUsage({ group: this.name, sessionId: live.sessionId, model: live.agent.config.model, usage, cost: this.#cost(live.agent.config.model, usage), durationMs: 0, at: clock.now(), origin: { kind: 'memory-flush', id: null } });
      }
      this.#options.log(`group ${this.name}: session ${live.sessionId}: ${describeMemoryFlush(outcome)}`);
    } catch (error) {
      this.#options.log(`group ${this.name}: session ${live.sessionId}: memory flush failed, compacting anyway: ${describeError(error)}`);
    }
  }

  /**
   * The agent's `persist`: the store must hold exactly the history the agent
   * compacted; then the recovery branch and the compaction are written in one
   * transaction, before the agent adopts the summary.
   */
  async #persistCompaction(live: LiveSession, record: CompactionRecord): Promise<{ recoveryBranchId: string }> {
    const { store } = this.#options;
    await live.writer.flush();
    const context = await store.context(live.sessionId);
    const entryId = context.entryIds[record.firstKeptIndex];
    const same = context.messages.length === record.messagesBefore.length && JSON.stringify(context.messages[record.firstKeptIndex]) === JSON.stringify(record.messagesBefore[record.firstKeptIndex]);
    if (!same || entryId === null || entryId === undefined) {
      throw new XdogError(ErrorCodes.STALE, `session ${live.sessionId} in the store differs from the live conversation`, { hint: 'nothing was written; compact again' });
    }
    const written = await store.compact(live.sessionId, {
      summary: record.state.summary,
      ...(record.state.details === undefined ? {} : { details: record.state.details }),
      firstKeptEntryId: entryId,
      tokensBefore: record.tokensBefore,
      tokensAfter: record.tokensAfter,
      expectedLeafEntryId: context.session.leafEntryId,
    });
    const label = written.recovery.kind === 'label' ? (written.recovery.payload.label ?? '') : '';
    live.lastCompaction = { compactionEntryId: written.compaction.id, recoveryBranchId: written.recovery.id, label };
    return { recoveryBranchId: String(written.recovery.id) };
  }

  // ---- lifecycle -----------------------------------------------------------

  /**
   * Takes no more input and ends what there is: waiting prompts are dropped
   * (they never ran; each gets its run.end), the running turn is stopped and
   * its writes awaited; it ends `interrupted` with `why` ("the gateway
   * stopped"), unless a client had aborted it. Its clients hear the end while
   * the connections are still open. Idempotent; close() calls it.
   */
  endRuns(why = `group ${this.name} closed`): Promise<void> {
    this.#released ??= this.#endRuns(why);
    return this.#released;
  }

  async #endRuns(why: string): Promise<void> {
    this.#closed = true;
    this.#endedBecause = why;
    const now = this.#options.clock.now();
    const errorMessage = `${why} before the input ran`;
    for (const dropped of this.#prompts.splice(0)) {
      if (dropped.key) this.#admittedKeys.delete(dropped.key);
      const sessionId = dropped.system?.sessionId ?? this.#group.activeSessionId ?? '';
      this.#options.publish(sessionId, Notifications.runEnd, { group: this.name, sessionId, inputId: dropped.id, status: 'dropped', errorMessage });
      this.#tellEnded(dropped.observer, { status: 'dropped', errorMessage });
      dropped.system?.settle({ inputId: dropped.id, sessionId, status: 'dropped', errorMessage, usage: zeroUsage(), startedAt: now, endedAt: now });
    }
    const run = this.#run;
    if (run && this.#live) {
      await this.#live.agent.cancelAndWait();
      await run.done;
    }
  }

  /** Ends the runs (endRuns), then releases the agent and the group's kernel. */
  async close(why?: string): Promise<void> {
    await this.endRuns(why);
    if (this.#kernelClosed) return;
    this.#kernelClosed = true;
    this.#stopQueueGauge?.();
    await this.#dropLive();
    await this.#options.kernel.close();
  }

  // ---- internals -----------------------------------------------------------

  /** An input id: its lane's letter, a number, and this runtime's tag. */
  #newInputId(lane: 'p' | 'y' | 's' | 'f'): string {
    return `${lane}${this.#nextInputId++}-${this.#inputIdTag}`;
  }

  #pendingCount(): number {
    return this.#prompts.length + this.#accepting + (this.#live?.agent.pendingInputs().filter((input) => input.state !== 'rejected').length ?? 0);
  }

  #queueFull(): XdogError {
    return new XdogError(ErrorCodes.LIMIT_EXCEEDED, `group ${this.name} already has ${LIMITS.clawQueuedInputs} inputs waiting, the limit`, {
      hint: 'wait for some to run, or remove some from the queue',
    });
  }

  #assertOpen(): void {
    if (this.#closed) throw new XdogError(ErrorCodes.UNAVAILABLE, `group ${this.name} is shutting down`, { hint: 'retry after the gateway restarted' });
  }

  #assertExpected(expected: string | null): void {
    const active = this.#group.activeSessionId;
    if (expected !== active) {
      throw new XdogError(ErrorCodes.STALE, `the active session of group ${this.name} is ${active ?? 'none'}, not ${expected ?? 'none'}`, {
        hint: 'it changed since you looked; read the group state again and decide anew',
      });
    }
  }

  /**
   * The group's first session; concurrent first prompts share one creation.
   * When the store already has an active session (a previous owner of the
   * group made it after this runtime read the group), that one is used.
   */
  #createFirstSession(): Promise<string> {
    this.#creatingFirst ??= (async () => {
      try {
        let sessionId: string;
        try {
          sessionId = (await this.#options.store.createSession(this.name, this.newSessionOptions(), { expectedActiveSessionId: null })).id;
        } catch (error) {
          if (!XdogError.is(error, ErrorCodes.STALE)) throw error;
          const current = await this.#options.store.getGroup(this.name);
          if (!current.activeSessionId) throw error;
          sessionId = current.activeSessionId;
        }
        this.#group = await this.#options.store.getGroup(this.name);
        this.#publishState();
        return sessionId;
      } finally {
        this.#creatingFirst = undefined;
      }
    })();
    return this.#creatingFirst;
  }

  #startRun(pending: PendingPrompt): void {
    this.#reserved = true;
    this.#abortAsked = false;
    const sessionId = pending.system?.sessionId ?? this.#group.activeSessionId!;
    const run: ActiveRun = { inputId: pending.id, source: pending.system?.source ?? { kind: 'prompt', key: pending.key ?? '' }, sessionId, startedAt: this.#options.clock.now(), done: Promise.resolve(), ...(pending.observer ? { observer: pending.observer } : {}) };
    this.#run = run;
    run.done = this.#execute(run, pending).finally(() => {
      this.#run = undefined;
      this.#reserved = false;
      this.#publishState();
      this.#startNext();
    });
    this.#publishState();
  }

  async #execute(run: ActiveRun, pending: PendingPrompt): Promise<void> {
    const telemetry = telemetryOf(this.#options.kernel);
    if (!telemetry) {
      await this.#executeRun(run, pending);
      return;
    }
    const source = pending.system?.source;
    const trace: RunTrace = pending.trace ?? (source ? { via: source.origin, origin: source.name ?? source.id, ...(source.id ? { originId: source.id } : {}) } : { via: 'client' });
    await traceGroupRun(telemetry, { group: this.name, sessionId: run.sessionId, inputId: run.inputId, trace }, () => this.#executeRun(run, pending));
  }

  /** Runs one input and reports its end; returns the run's status. */
  async #executeRun(run: ActiveRun, pending: PendingPrompt): Promise<string> {
    let status = 'error';
    let errorMessage: string | undefined;
    // A run that failed on a typed error (a damaged store: STORE_CORRUPT) says which, so a client reports it as that, not as a model failure.
    let failure: { errorCode: string; errorHint?: string } | undefined;
    let usage = zeroUsage();
    let prompted = false;
    try {
      const live = await this.#whileStoreUnreachable(() => this.#liveSession(run.sessionId));
      const input: UserMessage = {
        role: 'user',
        content: pending.images.length ? [{ type: 'text', text: pending.text }, ...pending.images] : pending.text,
        timestamp: this.#options.clock.now(),
      };
      if (!pending.resume) await this.#compactBeforeTurn(live, input);
      await this.#options.onRunStarting?.({ group: this.name, sessionId: run.sessionId, inputId: run.inputId, agent: live.agent });
      live.writer.labelNextInput(pending.system?.source, pending.key);
      prompted = true;
      const result = await live.agent.prompt(pending.resume ? [] : input, { system: pending.system !== undefined }).result();
      await live.writer.flush();
      await this.#recordUnstoredKey(live, pending.key);
      status = result.status;
      errorMessage = result.errorMessage;
      // Cut by the gateway (stopping, or giving the group up), not by a client: say so.
      if (status === 'aborted' && this.#endedBecause !== undefined && !this.#abortAsked) {
        status = 'interrupted';
        errorMessage = `${this.#endedBecause}; the run was interrupted`;
      }
      usage = usageOf(result.newMessages);
    } catch (error) {
      errorMessage = describeError(error);
      if (XdogError.is(error)) failure = { errorCode: error.code, ...(error.hint ? { errorHint: error.hint } : {}) };
      // Refused before the turn began (e.g. the group's lease is running out): it never ran, like a prompt dropped at close.
      if (!prompted && XdogError.is(error, ErrorCodes.UNAVAILABLE)) status = 'dropped';
      // Cut by the store going away (a restart, an outage): what was committed stays, the rest is not replayed.
      else if (prompted && (storeUnreachable(error) || storeUnreachable(this.#live?.writer.failure))) {
        status = 'interrupted';
        errorMessage = `${errorMessage}; the run was interrupted (what it stored before stays; it is not run again)`;
      }
      this.#options.log(`group ${this.name}: run failed: ${errorMessage}`);
      // A failed write or build leaves the live agent out of step with the store: rebuild it next time.
      await this.#dropLive();
    }
    // Its key is in the store now, or it never ran (a retry may send it again).
    if (pending.key) this.#admittedKeys.delete(pending.key);
    this.#options.publish(run.sessionId, Notifications.runEnd, { group: this.name, sessionId: run.sessionId, inputId: run.inputId, status, ...(errorMessage ? { errorMessage } : {}), ...failure });
    const endedAt = this.#options.clock.now();
    try {
      this.#options.onRunEnded?.({ group: this.name, sessionId: run.sessionId, inputId: run.inputId, source: pending.system?.source ?? { kind: 'prompt', key: pending.key ?? '' }, status, ...(errorMessage ? { errorMessage } : {}), startedAt: run.startedAt, endedAt });
    } catch (error) {
      this.#options.log(`group ${this.name}: a runEnded observer failed: ${describeError(error)}`);
    }
    pending.system?.settle({ inputId: run.inputId, sessionId: run.sessionId, status, ...(errorMessage ? { errorMessage } : {}), usage, startedAt: run.startedAt, endedAt });
    this.#tellEnded(run.observer, { status, ...(errorMessage ? { errorMessage } : {}) });
    return status;
  }

  /**
   * Runs `work` (loading a run's session, before anything ran), trying again with backoff while
   * the store is unreachable (PostgreSQL restarting) for up to LIMITS.clawHandoffSeconds: an
   * acknowledged input then starts late instead of being dropped. Ends at once when the group is
   * being closed or fenced.
   */
  async #whileStoreUnreachable<T>(work: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + LIMITS.clawHandoffSeconds * 1000;
    for (let attempt = 0; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        const unreachable = storeUnreachable(error);
        if (!unreachable || this.#endedBecause !== undefined || this.#closed || Date.now() >= deadline) throw error;
        if (attempt === 0) this.#options.log(`group ${this.name}: the store is unreachable as a run starts; trying again until it is back (at most ${LIMITS.clawHandoffSeconds} s)`);
        await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
      }
    }
  }

  /**
   * A prompt whose run stored no user message for it (an inputTransform tap handled or refused it)
   * was still admitted: its key is recorded on its own, so a retry is a duplicate.
   */
  async #recordUnstoredKey(live: LiveSession, key: string | undefined): Promise<void> {
    if (key === undefined || live.writer.unstoredKey !== key) return;
    try {
      await this.#options.store.recordInputKey(this.name, key, live.sessionId);
    } catch (error) {
      this.#options.log(`group ${this.name}: the idempotency key of a handled input was not recorded (a retry with it runs again): ${describeError(error)}`);
    }
  }

  #tellEnded(observer: RunObserver | undefined, outcome: { status: string; errorMessage?: string }): void {
    try {
      observer?.ended?.(outcome);
    } catch (error) {
      this.#options.log(`group ${this.name}: a run observer failed: ${describeError(error)}`);
    }
  }

  #startNext(): void {
    if (this.#closed || this.#reserved) return;
    const next = this.#prompts.shift();
    if (next) this.#startRun(next);
  }

  /** The agent of the active session, built from the store on first use. */
  async #liveSession(sessionId: string): Promise<LiveSession> {
    if (this.#live?.sessionId === sessionId) return this.#live;
    await this.#dropLive();
    const { store, kernel, config, clock } = this.#options;
    const context = await store.context(sessionId);
    const turnWrites = new TurnWrites();
    const model = this.resolveModel(context.state.model);
    const thinking = context.state.thinking ?? undefined;
    // Filled once the agent exists: its barrier before each model call waits for the writer first.
    const stored: { writer?: SessionWriter } = {};
    const agent = kernel.createAgent(
      this.#registry.streamFn,
      { model: model.qualified, systemPrompt: config.system_prompt, thinking },
      {
        tools: selectTools(kernel.getAll(ToolContribution), config.enabled_tools, this.name),
        inputLimits: INPUT_LIMITS,
        skills: this.skills,
        toolCtx: { [CLAW_SESSION_TOOL_CTX]: sessionId, [CLAW_TURN_WRITES_TOOL_CTX]: turnWrites },
        // What the run has produced so far is stored before the model is called again (and budgets then read its usage).
        beforeModelCall: async (turn: number) => {
          await stored.writer?.flush();
          if (this.#options.beforeModelCall) await this.#beforeModelCall(sessionId, turn);
        },
        compaction: {
          // Within a run (between tool turns) and on a provider overflow; before a turn the runtime compacts itself, with the memory flush.
          ...this.compactionPolicy(),
          persist: (record) => this.#persistCompaction(this.#liveOf(agent), record),
        },
      },
    );
    try {
      const state = {
        model: model.qualified,
        usage: zeroUsage(),
        messages: context.messages,
        ...(config.system_prompt === undefined ? {} : { systemPrompt: config.system_prompt }),
        ...(thinking ? { thinking } : {}),
        ...(context.compaction ? { compaction: context.compaction } : {}),
      };
      // Calls still without results waited for an approval (init closed every other unanswered call): the next run runs them.
      agent.restoreParts(buildMetadata(state), context.messages, { pendingToolCalls: true });
    } catch (error) {
      await agent.close();
      throw error;
    }
    const writer = new SessionWriter(agent, {
      store,
      group: this.name,
      sessionId,
      clock,
      relay: (event) => {
        const wire = toWireEvent(event);
        // Events are relayed while their run is current (the run ends only after its writes settled).
        // `system` marks a run of a host input (schedule, goal): clients leave that input out of the timeline.
        if (wire) this.#options.publish(sessionId, Notifications.event, { group: this.name, sessionId, inputId: this.#run?.inputId, ...(this.#run?.source.kind === 'system' ? { system: true } : {}), event: wire });
        try {
          this.#run?.observer?.event?.(event);
        } catch (error) {
          this.#options.log(`group ${this.name}: a run observer failed: ${describeError(error)}`);
        }
      },
      onFailure: (error) => {
        this.#options.log(`group ${this.name}: ${error.message}`);
        agent.abort();
      },
      cost: this.#cost,
      turnWrites,
    });
    stored.writer = writer;
    bindTurnWrites(agent, turnWrites);
    this.#live = { sessionId, agent, writer };
    return this.#live;
  }

  /** Asks the gateway whether the current run may call the model once more (budgets). */
  async #beforeModelCall(sessionId: string, turn: number): Promise<void> {
    const run = this.#run;
    if (!run) return;
    await this.#options.beforeModelCall!({ group: this.name, sessionId, inputId: run.inputId, source: run.source, runStartedAt: run.startedAt, turn });
  }

  /** The live session of `agent`; a compaction of an agent already dropped must not write. */
  #liveOf(agent: Agent): LiveSession {
    if (this.#live?.agent !== agent) throw new XdogError(ErrorCodes.STALE, `group ${this.name}: the session changed during the compaction`, { hint: 'nothing was written; compact again' });
    return this.#live;
  }

  async #dropLive(): Promise<void> {
    const live = this.#live;
    this.#live = undefined;
    if (!live) return;
    live.writer.dispose();
    turnWritesOfAgent(live.agent)?.clear();
    await live.agent.close();
  }

  #publishState(): void {
    const { activeSessionId, revision } = this.#group;
    this.#options.publish(null, Notifications.groupChanged, { group: this.name, activeSessionId, revision, busy: this.busy, queued: this.#pendingCount() });
  }
}

/** The tokens of a run's model calls. */
function usageOf(messages: readonly Message[]): Usage {
  const total = zeroUsage();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    total.input += message.usage.input;
    total.output += message.usage.output;
    total.cacheRead = (total.cacheRead ?? 0) + (message.usage.cacheRead ?? 0);
    total.cacheWrite = (total.cacheWrite ?? 0) + (message.usage.cacheWrite ?? 0);
  }
  return total;
}

/** The tool the memory flush gives the agent (the memory plugin provides it). */
const MEMORY_WRITE_TOOL = 'memory_write';

/** The group's tools: `enabled_tools` by name (`[]` is none; absent is every contributed tool but the opt-in ones); an unknown name is a config error. */
export function selectTools(tools: readonly AgentTool[], enabled: readonly string[] | undefined, group: string): AgentTool[] {
  if (enabled === undefined) return defaultTools(tools);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return enabled.map((name) => {
    const tool = byName.get(name);
    if (!tool) {
      throw new XdogError(ErrorCodes.CONFIG_INVALID, `claw.groups.${group}.enabled_tools names "${name}", which no installed plugin provides`, {
        hint: `available: ${[...byName.keys()].sort().join(', ') || 'none'}`,
      });
    }
    return tool;
  });
}

/** The models a group may pick (`models.list`). */
export interface ModelCatalog {
  models: Array<{ model: string; name?: string; contextWindow?: number; reasoningEfforts?: string[]; input?: Array<'text' | 'image'> }>;
  /** Providers that list no models and take any id (`provider/<any>`). */
  anyModel: string[];
}

export type { SessionRecord };
