/**
 * Children held in memory, for hosts without a store (`xdog agent chat`).
 * Each child is a fresh Agent from the host's factory, run on a budgeted
 * stream (model calls and tokens) under a deadline. Nothing is durable: the
 * children end with their parent's process. The claw runtime keeps the same
 * contract with durable records.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCodes, LIMITS, XdogError, describeError, zeroUsage, type Agent, type AssistantMessage, type CompactionArchive, type ImageContent, type Message, type ModelStreamFn } from '../../core/index.js';
import type { ChildPresets, ChildSpec } from './contracts.js';

export type ChildStatus = 'running' | 'completed' | 'failed' | 'cancelled' | 'timeout' | 'limit';

/** What a parent (and its model) sees of a child. */
export interface ChildRecord {
  id: string;
  label: string | null;
  task: string;
  access: ChildSpec['access'];
  status: ChildStatus;
  /** The child's last answer once it ended. */
  result: string | null;
  error: string | null;
  modelCalls: number;
  tokens: number;
}

/** The host's side: how a fresh child Agent is built (its tools and gates), and the presets. */
export interface ChildHost {
  /**
   * A fresh Agent for `spec` on `streamFn` (budgeted by the runtime). Never
   * the parent; never with parent-only tools. `context` is the parent's
   * conversation the child inherits (inheritedContext), when it asked to.
   */
  createChild(spec: ChildSpec, streamFn: ModelStreamFn, context: readonly Message[] | undefined, wiring: ChildWiring): Agent;
  /** The model access children share with their parent (the runtime budgets it per child). */
  readonly streamFn: ModelStreamFn;
  readonly presets: ChildPresets;
}

/** What the runtime gives the host for each child it builds. */
export interface ChildWiring {
  /**
   * Archives the child's complete history before a compaction's summary
   * request (the host passes it as `compaction.archive`). It rejects when the
   * runtime keeps no archives, so a child never compacts without one.
   */
  archive(archive: CompactionArchive): Promise<void>;
}

/** A host that keeps children durably observes them (plugins/children/durable-runtime.ts); each awaited step is done before the child goes on. */
export interface ChildObserver {
  /** Synchronously, as the child's Agent exists and before it starts. */
  started?(id: string, agent: Agent): void;
  /** Before each model call of the child. */
  beforeModelCall?(id: string): Promise<void>;
  /** After each model call of the child. */
  modelCalled?(id: string, call: { model: string; usage: AssistantMessage['usage']; durationMs: number }): Promise<void>;
  /** Before each compaction's summary request: keeps the complete history durably; a rejection fails that compaction (no cut). */
  archiveCompaction?(id: string, archive: CompactionArchive): Promise<void>;
  /** Once, when the child ended, before `wait` answers. */
  ended?(record: ChildRecord, transcript: readonly Message[]): Promise<void>;
  /** Told when `ended` failed (the child's end may not be recorded); the run itself has ended either way. */
  endFailed?(id: string, error: unknown): void;
}

/** How a child is spawned, beyond its spec. */
export interface SpawnOptions {
  /** The child's id (default: a fresh one). */
  id?: string;
  /** The parent's conversation, for a spec with inheritContext (already bounded by inheritedContext). */
  context?: readonly Message[];
  /** The parent's session, where the host has sessions (claw records it). */
  parentSessionId?: string | null;
  /** Images that go with the task (checked by the child's model admission like any input's). */
  images?: readonly ImageContent[];
}

interface LiveChild {
  record: ChildRecord;
  agent: Agent;
  /** Messages it inherited from its parent (its own answer comes after them). */
  inherited: number;
  done: Promise<void>;
  /** Why the runtime stopped it, when it did. */
  stoppedAs?: Extract<ChildStatus, 'cancelled' | 'timeout' | 'limit'>;
  /** Who cancelled it, as its record's error says (with stoppedAs `cancelled`). */
  cancelledBecause?: string;
}

/** What a cancelled child's record says when its host names no one. */
export const CANCELLED_BY_PARENT = 'cancelled by the parent';

function lastText(messages: readonly { role: string; content: unknown }[]): string | null {
  const last = [...messages].reverse().find((message) => message.role === 'assistant') as AssistantMessage | undefined;
  if (!last) return null;
  return last.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('') || null;
}

export class MemoryChildRuntime {
  readonly #host: ChildHost;
  readonly #children = new Map<string, LiveChild>();
  readonly #observer: ChildObserver;

  constructor(host: ChildHost, observer: ChildObserver = {}) {
    this.#host = host;
    this.#observer = observer;
  }

  get presets(): ChildPresets {
    return this.#host.presets;
  }

  /** True while any child runs (a host holds session changes back then). */
  get active(): boolean {
    return [...this.#children.values()].some((child) => child.record.status === 'running');
  }

  /** Refuses (LIMIT_EXCEEDED) when no child may start now; `starting` counts spawns a host has admitted and not yet started. */
  assertRoom(starting = 0): void {
    const running = [...this.#children.values()].filter((child) => child.record.status === 'running').length + starting;
    if (running >= LIMITS.childActive) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${running} children are already running, the limit`, { hint: 'wait for one, or cancel one' });
    const kept = this.#children.size + starting;
    if (kept >= LIMITS.childRetained) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${kept} child records are kept, the limit`, { hint: 'close finished children first' });
  }

  /** Starts a child; `options.id` is the host's (a durable host commits its record first); `options.context` what it inherits. */
  spawn(spec: ChildSpec, options: SpawnOptions = {}): ChildRecord {
    this.assertRoom();
    if (spec.inheritContext && options.context === undefined) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'inherit_context needs the parent\'s conversation, and none was given', { hint: 'spawn it from a parent agent (the agent tool)' });
    if (spec.inheritTodos && spec.todos === undefined) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'inherit_todos needs the parent\'s todo list, and none was given', { hint: 'spawn it from a parent agent (the agent tool)' });
    const id = options.id ?? `c-${randomUUID().slice(0, 8)}`;
    const record: ChildRecord = { id, label: spec.label ?? null, task: spec.task, access: spec.access, status: 'running', result: null, error: null, modelCalls: 0, tokens: 0 };
    const live = { record, inherited: spec.inheritContext ? options.context!.length : 0 } as LiveChild;
    live.agent = this.#host.createChild(spec, this.#budgeted(live, spec), spec.inheritContext ? options.context : undefined, { archive: (archive) => this.#archive(id, archive) });
    this.#followCompactions(live);
    this.#children.set(record.id, live);
    this.#observer.started?.(record.id, live.agent);
    live.done = this.#run(live, spec, options.images ?? []);
    return { ...record };
  }

  list(): ChildRecord[] {
    return [...this.#children.values()].map((child) => ({ ...child.record }));
  }

  inspect(id: string): ChildRecord & { messages: number; pending: number } {
    const child = this.#get(id);
    return { ...child.record, messages: child.agent.messages.length, pending: child.agent.pendingInputs().length };
  }

  /** Queues a steer or follow-up into a running child. */
  queue(id: string, lane: 'steer' | 'followUp', text: string, inputId?: string, images: readonly ImageContent[] = []): ChildRecord {
    const child = this.#running(id);
    if (inputId !== undefined) child.agent.queueInput(inputId, text, lane, images);
    else if (lane === 'steer') child.agent.steer(text, images);
    else child.agent.followUp(text, images);
    return { ...child.record };
  }

  /** Edits, removes or moves a queued identified input of a running child; throws if a checkpoint already selected it (or, for a move, its neighbour). */
  changeInput(id: string, inputId: string, change: { text: string } | { remove: true } | { move: -1 | 1 }): void {
    const agent = this.#running(id).agent;
    if ('remove' in change) agent.changeInput(inputId, 'remove');
    else if ('text' in change) agent.changeInput(inputId, 'edit', change.text);
    else agent.changeInput(inputId, 'move', change.move);
  }

  /** True while the identified input waits in the child's queue, not selected by a checkpoint. */
  isQueued(id: string, inputId: string): boolean {
    return this.#get(id).agent.pendingInputs().some((input) => input.id === inputId && input.state === 'queued');
  }

  pending(id: string): Array<{ id: string; lane: string; text: string }> {
    return this.#get(id).agent.pendingInputs().map((input) => ({ id: input.id, lane: input.lane, text: input.text }));
  }

  /** Stops a running child; `because` is what its record's error says (who cancelled it). */
  async cancel(id: string, because = CANCELLED_BY_PARENT): Promise<ChildRecord> {
    const child = this.#get(id);
    if (child.record.status === 'running') {
      child.stoppedAs = 'cancelled';
      child.cancelledBecause = because;
      await child.agent.cancelAndWait();
      await child.done;
    }
    return { ...child.record };
  }

  /** Waits for the named children (default: all), or until `signal` aborts. */
  async wait(ids: readonly string[] | undefined, signal?: AbortSignal): Promise<ChildRecord[]> {
    const children = (ids ?? [...this.#children.keys()]).map((id) => this.#get(id));
    const aborted = new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([Promise.all(children.map((child) => child.done)), aborted]);
    return children.map((child) => ({ ...child.record }));
  }

  async close(id: string): Promise<void> {
    const child = this.#get(id);
    if (child.record.status === 'running') throw new XdogError(ErrorCodes.BUSY, `child ${id} is still running`, { hint: 'cancel or wait for it first' });
    this.#children.delete(id);
    await child.agent.close();
  }

  /** Cancels every running child (`because`: who, for their records) and releases all. */
  async closeAll(because = CANCELLED_BY_PARENT): Promise<void> {
    for (const child of this.#children.values()) {
      if (child.record.status === 'running') {
        child.stoppedAs = 'cancelled';
        child.cancelledBecause = because;
      }
      await child.agent.cancelAndWait().catch(() => undefined);
      await child.done;
      await child.agent.close();
    }
    this.#children.clear();
  }

  #get(id: string): LiveChild {
    const child = this.#children.get(id);
    if (!child) throw new XdogError(ErrorCodes.NOT_FOUND, `no child "${id}"`, { hint: `children: ${[...this.#children.keys()].join(', ') || 'none'}` });
    return child;
  }

  #running(id: string): LiveChild {
    const child = this.#get(id);
    if (child.record.status !== 'running') throw new XdogError(ErrorCodes.INVALID_STATE, `child ${id} is ${child.record.status}, not running`);
    return child;
  }

  async #run(live: LiveChild, spec: ChildSpec, images: readonly ImageContent[]): Promise<void> {
    const deadline = setTimeout(() => {
      live.stoppedAs = 'timeout';
      live.agent.abort();
    }, spec.timeoutSeconds * 1000);
    deadline.unref();
    try {
      const task = images.length === 0 ? spec.task : { role: 'user' as const, content: [{ type: 'text' as const, text: spec.task }, ...images], timestamp: Date.now() };
      const result = await live.agent.prompt(task).result();
      live.record.result = lastText(live.agent.messages.slice(live.inherited));
      if (live.stoppedAs) {
        live.record.status = live.stoppedAs;
        live.record.error ??= live.stoppedAs === 'timeout' ? `the child passed its ${spec.timeoutSeconds} s deadline` : live.stoppedAs === 'cancelled' ? (live.cancelledBecause ?? CANCELLED_BY_PARENT) : live.record.error;
      } else if (result.status === 'completed') live.record.status = 'completed';
      else {
        live.record.status = 'failed';
        live.record.error = result.errorMessage ?? result.status;
      }
    } catch (error) {
      live.record.status = live.stoppedAs ?? 'failed';
      live.record.error = describeError(error);
    } finally {
      clearTimeout(deadline);
    }
    await this.#observer.ended?.({ ...live.record }, live.agent.messages).catch((error: unknown) => this.#observer.endFailed?.(live.record.id, error));
  }

  #archive(id: string, archive: CompactionArchive): Promise<void> {
    const keep = this.#observer.archiveCompaction;
    if (!keep) {
      return Promise.reject(new XdogError(ErrorCodes.UNAVAILABLE, `child ${id} needs a compaction, but this host keeps no compaction archives`, { hint: 'the child goes on with its full history; run children where a store keeps their archives (claw)' }));
    }
    return keep(id, archive);
  }

  /** After a compaction the child's own messages start elsewhere: its answer is still found after what it inherited. */
  #followCompactions(live: LiveChild): void {
    live.agent.subscribe((event) => {
      if (event.type !== 'compaction_end' || !event.result?.compacted) return;
      // The kept messages follow the summary (index 1 on); a cut past the inherited part leaves only the child's own.
      const cut = event.result.firstKeptIndex;
      live.inherited = live.inherited >= cut ? live.inherited - cut + 1 : 1;
    });
  }

  /** The host's stream, refusing the call past the model-call or token cap (the child then ends as "limit"). */
  #budgeted(live: LiveChild, spec: ChildSpec): ModelStreamFn {
    const record = live.record;
    const inner = this.#host.streamFn;
    const observer = this.#observer;
    async function* budgeted(...[model, context, options]: Parameters<ModelStreamFn>) {
      if (record.modelCalls >= spec.maxModelCalls || record.tokens >= spec.maxTokens) {
        const reason = record.modelCalls >= spec.maxModelCalls ? `its ${spec.maxModelCalls} model calls` : `its ${spec.maxTokens} tokens`;
        live.stoppedAs = 'limit';
        record.error = `the child used up ${reason}`;
        const message: AssistantMessage = { role: 'assistant', content: [], model, usage: zeroUsage(), stopReason: 'error', errorMessage: record.error, timestamp: Date.now() };
        yield { type: 'error' as const, message };
        return;
      }
      await observer.beforeModelCall?.(record.id);
      record.modelCalls++;
      const startedAt = Date.now();
      for await (const event of inner(model, context, options)) {
        if (event.type === 'done' || event.type === 'error') {
          record.tokens += event.message.usage.input + event.message.usage.output;
          await observer.modelCalled?.(record.id, { model, usage: event.message.usage, durationMs: Date.now() - startedAt });
        }
        yield event;
      }
    }
    // Keep the model metadata (limits, reasoning levels) the agent asks the stream for.
    return Object.assign(budgeted, { resolveModel: inner.resolveModel?.bind(inner), models: inner.models?.bind(inner) });
  }
}
