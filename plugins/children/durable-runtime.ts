/**
 * Children of one claw group whose records live in the store: the in-memory
 * runtime runs them, and this keeps the store ahead of it. A child's row is
 * committed before it starts; an input is journaled before the caller is
 * answered and marked consumed before the model call after the one that took
 * it in; each model call goes into the usage ledger as the child's; the end
 * is recorded (with the transcript) before `wait` answers; before each
 * compaction's summary request the complete history is archived.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCodes, XdogError, describeError, type Agent, type CompactionEndEvent, type ImageContent, type Message, type Usage } from '../../core/index.js';
import { inputTaken, neighbourTaken, type ChildCompactionArchive, type ChildInputChange, type ChildRecordStore, type ChildInputRecord, type DurableChildRecord } from './child-records.js';
import type { ChildInputSource } from './child-source.js';
import type { ChildPresets, ChildSpec } from './contracts.js';
import { MemoryChildRuntime, type ChildHost, type ChildStatus, type SpawnOptions } from './memory-runtime.js';

const INPUT_ID_PREFIX = 'child-input-';

/** The error of a child the group's own model cancelled with the agent tool (clients and the gateway name themselves). */
export const CANCELLED_BY_PARENT_AGENT = 'cancelled by the parent agent';

export class DurableChildRuntime {
  readonly #records: ChildRecordStore;
  readonly #group: string;
  readonly #parentSessionId: string | null;
  readonly #live: MemoryChildRuntime;
  /** Journaled input ids the agent took in, per child, not yet marked consumed in the store. */
  readonly #consumed = new Map<string, number[]>();
  /** Spawns admitted under the caps whose record is being written: they count as running, so concurrent spawns cannot pass the cap together. */
  #starting = 0;
  readonly #log: (line: string) => void;
  /** The tail of the input changes, run one after another. */
  #changes: Promise<unknown> = Promise.resolve();

  constructor(options: {
    host: ChildHost;
    records: ChildRecordStore;
    group: string;
    parentSessionId?: string | null;
    log?(line: string): void;
    cost?(model: string, usage: Usage): number | null;
    /** Asked before each of a child's model calls; rejects (BUDGET_EXCEEDED) to refuse it, which ends the child failed. */
    spendCheck?(childId: string): Promise<void>;
  }) {
    this.#records = options.records;
    this.#log = options.log ?? (() => undefined);
    this.#group = options.group;
    this.#parentSessionId = options.parentSessionId ?? null;
    this.#live = new MemoryChildRuntime(options.host, {
      started: (id, agent) => this.#follow(id, agent),
      beforeModelCall: async (id) => {
        await options.spendCheck?.(id);
        await this.#flushConsumed(id);
      },
      // The complete history is in the store before the summary request starts.
      archiveCompaction: async (id, archive) => {
        await this.#records.archiveCompaction(id, archive.generation, archive.messages);
      },
      modelCalled: async (id, call) => this.#records.recordUsage(await this.#records.get(this.#group, id), { ...call, cost: options.cost?.(call.model, call.usage) ?? null }),
      ended: async (record, transcript) => {
        await this.#flushConsumed(record.id);
        await this.#records.finish(record.id, { status: record.status as Exclude<ChildStatus, 'running'>, result: record.result, error: record.error, transcript });
      },
      // The row stays "running" until the next start marks it interrupted: say why now.
      endFailed: (id, error) => options.log?.(`group ${options.group}: child ${id}: its end was not recorded: ${describeError(error)}`),
    });
  }

  get presets(): ChildPresets {
    return this.#live.presets;
  }

  /**
   * How many of the group's children are running, by the store: whichever
   * process runs them (the group holds session changes, resets and loosening back while any do).
   */
  running(): Promise<number> {
    return this.#records.runningCount(this.#group);
  }

  /** Starts a child: its record is committed first; `options.parentSessionId` defaults to the runtime's. */
  async spawn(spec: ChildSpec, options: Omit<SpawnOptions, 'id'> = {}): Promise<DurableChildRecord> {
    const id = `c-${randomUUID().slice(0, 8)}`;
    this.#live.assertRoom(this.#starting); // refused over the caps before anything is written
    this.#starting++;
    try {
      const record = await this.#records.create({ id, group: this.#group, parentSessionId: options.parentSessionId ?? this.#parentSessionId, spec, ...(options.images ? { images: options.images } : {}) });
      try {
        this.#live.spawn(spec, { ...options, id });
      } catch (error) {
        // Refused before it ran (a tool it may not have, no context to inherit): no child, so no record.
        await this.#records.discard(id);
        throw error;
      }
      return record;
    } finally {
      this.#starting--;
    }
  }

  list(): Promise<DurableChildRecord[]> {
    return this.#records.list(this.#group);
  }

  async inspect(id: string): Promise<DurableChildRecord & { inputs: ChildInputRecord[] }> {
    return { ...(await this.#records.get(this.#group, id)), inputs: await this.#records.inputs(this.#group, id) };
  }

  /** The child's final transcript (stored when it ended; empty while it runs); `agents.source` serves it in chunks. */
  async transcript(id: string): Promise<{ id: string; status: DurableChildRecord['status']; messages: Message[] }> {
    const record = await this.#records.get(this.#group, id);
    const messages = await this.#records.transcript(this.#group, id);
    return { id, status: record.status, messages };
  }

  /** One journaled input with its images, whatever its status (a removed or uncertain one can be taken back whole). */
  async inputSource(id: string, inputId: number): Promise<ChildInputSource> {
    const input = (await this.#records.inputs(this.#group, id)).find((candidate) => candidate.id === inputId);
    if (!input) throw new XdogError(ErrorCodes.NOT_FOUND, `child ${id} has no input #${inputId}`, { hint: `see its inputs with xdog claw agents inspect ${id}` });
    return { child: id, input: { ...input, images: await this.#records.inputImages(this.#group, id, inputId) } };
  }

  /** The child's compaction archives (what each holds; its full history before that compaction). */
  async compactionArchives(id: string): Promise<{ id: string; archives: ChildCompactionArchive[] }> {
    return { id, archives: await this.#records.compactionArchives(this.#group, id) };
  }

  /** One archive's complete history (every kept archive fits one answer: LIMITS.childCompactionArchiveBytes). */
  async compactionArchive(id: string, generation: number): Promise<{ id: string } & ChildCompactionArchive & { messages: Message[] }> {
    return { id, ...(await this.#records.compactionArchive(this.#group, id, generation)) };
  }

  /** Journals the input, then queues it; answers once it is journaled. */
  async queue(id: string, lane: 'steer' | 'followUp', text: string, images: readonly ImageContent[] = []): Promise<ChildInputRecord> {
    await this.#assertRunningHere(id);
    const input = await this.#records.journalInput(this.#group, id, lane, text, images);
    this.#live.queue(id, lane, text, `${INPUT_ID_PREFIX}${input.id}`, images);
    return input;
  }

  /**
   * Edits, removes or moves an input the child's model has not taken in;
   * answers the child's inputs after it. The journal changes first; if the
   * live queue then refuses (a checkpoint selected the input, or the one it
   * would pass, meanwhile) the journal is put back.
   */
  changeInput(id: string, inputId: number, change: ChildInputChange): Promise<ChildInputRecord[]> {
    // One change at a time, so the journal and the live queue see edits in the same order.
    const next = this.#changes.then(() => this.#changeInput(id, inputId, change));
    this.#changes = next.catch(() => undefined);
    return next;
  }

  async #changeInput(id: string, inputId: number, change: ChildInputChange): Promise<ChildInputRecord[]> {
    await this.#assertRunningHere(id);
    const previous = await this.#records.reviseInput(this.#group, id, inputId, change);
    try {
      this.#live.changeInput(id, `${INPUT_ID_PREFIX}${inputId}`, change);
    } catch (error) {
      await this.#records.restoreInput(id, previous);
      // The queue's refusal means a checkpoint took the input; a child that ended meanwhile says so itself.
      const refused = error instanceof XdogError && (error.code === ErrorCodes.NOT_FOUND || error.code === ErrorCodes.INVALID_STATE || error.code === ErrorCodes.INVALID_ARGUMENT);
      if (!refused || !this.#runningHere(id)) throw error;
      if ('move' in change && this.#live.isQueued(id, `${INPUT_ID_PREFIX}${inputId}`)) throw neighbourTaken(id, inputId);
      throw inputTaken(id, inputId, 'accepted');
    }
    return this.#records.inputs(this.#group, id);
  }

  /** The child's inputs journaled and not yet taken in by its model. */
  async pending(id: string): Promise<ChildInputRecord[]> {
    return (await this.#records.inputs(this.#group, id)).filter((input) => input.status === 'accepted');
  }

  /** Stops a running child; `because` names who cancelled it (its record's error). */
  async cancel(id: string, because = CANCELLED_BY_PARENT_AGENT): Promise<DurableChildRecord> {
    if (this.#live.list().some((child) => child.id === id)) await this.#live.cancel(id, because);
    return this.#records.get(this.#group, id);
  }

  async wait(ids: readonly string[] | undefined, signal?: AbortSignal): Promise<DurableChildRecord[]> {
    const known = ids ?? this.#live.list().map((child) => child.id);
    const live = known.filter((id) => this.#live.list().some((child) => child.id === id));
    await this.#live.wait(live, signal);
    return Promise.all(known.map((id) => this.#records.get(this.#group, id)));
  }

  async close(id: string): Promise<void> {
    await this.#records.close(this.#group, id);
    if (this.#live.list().some((child) => child.id === id)) await this.#live.close(id);
  }

  /** Cancels every running child (each is recorded as cancelled, `because` saying who) and releases all. */
  async closeAll(because: string): Promise<void> {
    await this.#live.closeAll(because);
  }

  #runningHere(id: string): boolean {
    return this.#live.list().some((child) => child.id === id && child.status === 'running');
  }

  async #assertRunningHere(id: string): Promise<void> {
    if (this.#runningHere(id)) return;
    const stored = await this.#records.get(this.#group, id);
    throw new XdogError(ErrorCodes.INVALID_STATE, `child ${id} is ${stored.status}, not running here`, { hint: 'steer and follow-up reach only a running child' });
  }

  #follow(id: string, agent: Agent): void {
    agent.subscribe((event) => {
      if (event.type === 'compaction_end') return this.#logCompaction(id, event);
      if (event.type !== 'input_consumed' || !event.id?.startsWith(INPUT_ID_PREFIX)) return;
      const pending = this.#consumed.get(id) ?? [];
      pending.push(Number(event.id.slice(INPUT_ID_PREFIX.length)));
      this.#consumed.set(id, pending);
    });
  }

  /** A child's compaction says what happened in the gateway log; a failed one left its history whole. */
  #logCompaction(id: string, event: CompactionEndEvent): void {
    const where = `group ${this.#group}: child ${id}`;
    if (event.error) this.#log(`${where}: compaction failed, the child goes on with its full history: ${event.error.message}`);
    else if (event.result?.compacted) this.#log(`${where}: compacted (#${event.result.count}, ${event.result.tokensBefore} → ${event.result.tokensAfter} tokens); its full history is archived`);
  }

  async #flushConsumed(id: string): Promise<void> {
    const pending = this.#consumed.get(id);
    if (!pending?.length) return;
    this.#consumed.delete(id);
    await this.#records.markConsumed(id, pending);
  }
}
