/**
 * Persists one agent's committed messages into its session, in order, and
 * relays its events to clients only after what they report is durable: a
 * client never sees a message the store could lose in a crash.
 *
 * Listeners of an Agent are synchronous, so every event goes into one
 * promise chain. The agent waits on that chain where it matters: before each
 * tool runs (a `beforeToolCall` tap: the assistant message that asked for it
 * is stored first) and before each model call (the owner passes `flush` as the
 * agent's `beforeModelCall` barrier: tool results and inputs are stored
 * first), so a crash never leaves effects without their record. It does not
 * tap `context`: any tap there makes every model call copy and check the whole
 * history, and a barrier needs neither.
 *
 * One commit per stored message: a prompt's user message commits with its
 * idempotency key (the input is stored and its key known, or neither), an
 * assistant message with its usage row, a tool result with the writes its
 * tool staged (TurnWrites). An
 * assistant message that asks for tools is held until its first call is
 * judged: the barrier tap runs after the gates and the approval policy
 * (STORE_BARRIER_STAGE), so an approval asked for a call commits with the
 * message that made it (TurnWrites.withCallMessage). Every flush lets a held
 * message go, so nothing waits on it forever.
 */
import {
  ErrorCodes,
  STORE_BARRIER_STAGE,
  XdogError,
  describeError,
  tapHook,
  type Agent,
  type AgentEvent,
  type Clock,
  type Disposer,
  type Message,
  type Usage,
} from '../../core/index.js';
import { checkUsage, type SessionStore, type Sql, type SystemInputSource, type UsageOrigin } from '../sessions/tokens.js';
import type { TurnWrite, TurnWrites } from './turn-writes.js';

/** An assistant message with tool calls, not committed yet: writes for its calls may still join its transaction. */
interface HeldMessage {
  calls: ReadonlySet<string>;
  writes: TurnWrite[];
  release(): void;
}

export interface SessionWriterOptions {
  store: SessionStore;
  group: string;
  sessionId: string;
  clock: Clock;
  /** Called, in order, with each event once what it reports is stored. */
  relay(event: AgentEvent): void;
  /** Told when a write fails; the run is aborted (the transcript must not diverge from the store). */
  onFailure(error: XdogError): void;
  /** Writes tools staged for their results: each commits with its tool result entry. */
  turnWrites?: TurnWrites;
  /** What a call of `model` with `usage` cost in US dollars; null when its price is unknown. */
  cost?(model: string, usage: Usage): number | null;
}

export class SessionWriter {
  readonly #options: SessionWriterOptions;
  #chain: Promise<void> = Promise.resolve();
  #failure?: XdogError;
  #turnStartedAt = 0;
  /** The label of the system input the current run starts with; stored with its user message. */
  #nextSource?: SystemInputSource;
  /** The idempotency key of the prompt the current run starts with, until a stored user message carries it. */
  #nextKey?: string;
  /** What the current run's model calls are attributed to in the ledger. */
  #origin: UsageOrigin = { kind: 'prompt', id: null };
  readonly #disposers: Disposer[] = [];
  readonly #agent: Agent;
  #held?: HeldMessage;

  constructor(agent: Agent, options: SessionWriterOptions) {
    this.#options = options;
    this.#agent = agent;
    this.#disposers.push(agent.subscribe((event) => this.#enqueue(event)));
    this.#disposers.push(tapHook(agent.hooks.beforeToolCall, 'claw-gateway', async () => {
      await this.flush();
      return undefined;
    }, { stage: STORE_BARRIER_STAGE }));
    options.turnWrites?.holdMessagesWith((toolCallId, write) => this.#withCallMessage(toolCallId, write));
  }

  /** The first write failure, if any (a hook that re-threw it may have dropped it as the cause). */
  get failure(): XdogError | undefined {
    return this.#failure;
  }

  /**
   * Resolves when every event so far is stored and relayed; throws the first
   * write failure. The barrier the owner runs before each model call.
   */
  async flush(): Promise<void> {
    this.#release();
    await this.#chain;
    if (this.#failure) throw this.#failure;
  }

  /**
   * Labels the next user message stored: a system input with where it came from, a prompt with its
   * idempotency key (recorded in the message's commit); `undefined` clears either.
   */
  labelNextInput(source: SystemInputSource | undefined, key?: string): void {
    this.#chain = this.#chain.then(() => {
      this.#nextSource = source;
      this.#nextKey = key;
      this.#origin = source ? { kind: source.origin, id: source.id } : { kind: 'prompt', id: null };
    });
  }

  /** The key given to labelNextInput that no stored user message has carried yet (its input was handled or refused before it was stored). */
  get unstoredKey(): string | undefined {
    return this.#nextKey;
  }

  dispose(): void {
    this.#release();
    for (const dispose of this.#disposers.splice(0)) dispose();
  }

  /** Lets the held assistant message (if any) commit. */
  #release(): void {
    const held = this.#held;
    this.#held = undefined;
    held?.release();
  }

  /** Commits `write` with the held message that made call `toolCallId`; false when no held message made it. */
  async #withCallMessage(toolCallId: string, write: TurnWrite): Promise<boolean> {
    if (!this.#held?.calls.has(toolCallId)) return false;
    this.#held.writes.push(write);
    await this.flush();
    return true;
  }

  #enqueue(event: AgentEvent): void {
    if (event.type === 'turn_start' || (event.type === 'message_start' && event.message.role === 'assistant')) this.#turnStartedAt = this.#options.clock.now();
    const calls = event.type === 'message_end' && event.message.role === 'assistant' ? event.message.content.filter((part) => part.type === 'toolCall').map((part) => part.id) : [];
    if (calls.length === 0) {
      this.#chain = this.#chain.then(() => this.#handle(event));
      return;
    }
    // Held (set now, synchronously, before its calls are prepared) until a flush lets it go.
    this.#release();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held: HeldMessage = { calls: new Set(calls), writes: [], release };
    this.#held = held;
    this.#chain = this.#chain.then(() => released).then(() => this.#handle(event, held.writes));
  }

  async #handle(event: AgentEvent, alongside: readonly TurnWrite[] = []): Promise<void> {
    if (this.#failure) return;
    try {
      if (event.type === 'message_end') await this.#store(event.message, alongside);
    } catch (error) {
      // An unreachable store (PostgreSQL restarting) is not a damaged one: the run is interrupted, the store is fine.
      const unreachable = XdogError.is(error, ErrorCodes.UNAVAILABLE);
      // A copy of an input whose key the store already holds is refused as such: the store is fine, the copy never ran.
      const duplicate = XdogError.is(error, ErrorCodes.CONFLICT);
      this.#failure = new XdogError(unreachable ? ErrorCodes.UNAVAILABLE : duplicate ? ErrorCodes.CONFLICT : ErrorCodes.STORE_CORRUPT, `storing a message of session ${this.#options.sessionId} failed: ${describeError(error)}`, {
        cause: error,
        hint: unreachable
          ? 'the run was interrupted; the gateway serves the group again once the store is back (send the input again if it should run)'
          : duplicate
            ? (error as XdogError).hint ?? 'nothing ran'
            : 'the run was stopped; check the store file and the gateway log',
      });
      this.#options.onFailure(this.#failure);
      return;
    }
    this.#options.relay(event);
  }

  async #store(message: Message, alongside: readonly TurnWrite[]): Promise<void> {
    const { store, sessionId, group, clock } = this.#options;
    const source = message.role === 'user' ? this.#nextSource : undefined;
    if (source) this.#nextSource = undefined;
    const key = message.role === 'user' ? this.#nextKey : undefined;
    const staged = message.role === 'toolResult' ? (this.#options.turnWrites?.take(message.toolCallId) ?? []) : [];
    const joined = [...staged, ...alongside];
    // Checked before the transaction opens, so a bad row fails the write without holding the store.
    const usage = message.role === 'assistant'
      ? checkUsage({
          group,
          sessionId,
          // The qualified id the session uses ("provider/model"); the message carries the provider's bare id.
          model: this.#agent.config.model,
          usage: message.usage,
          cost: this.#options.cost?.(this.#agent.config.model, message.usage) ?? null,
          origin: this.#origin,
          durationMs: Math.max(0, clock.now() - this.#turnStartedAt),
          at: clock.now(),
        })
      : undefined;
    const within = joined.length
      ? async (sql: Sql) => {
          for (const write of joined) await write(sql);
        }
      : undefined;
    try {
      // The store sets the session's summary from its first user text in the same commit.
      await store.append(sessionId, [{ kind: 'message', payload: source ? { message, source } : { message } }], {
        ...(usage ? { usage } : {}),
        ...(within ? { within } : {}),
        ...(key === undefined ? {} : { inputKey: { group, key } }),
      });
      if (key !== undefined) this.#nextKey = undefined;
    } catch (error) {
      if (staged.length) this.#options.turnWrites!.settle((message as { toolCallId: string }).toolCallId, false);
      throw error;
    }
    if (staged.length) this.#options.turnWrites!.settle((message as { toolCallId: string }).toolCallId, true);
  }
}
