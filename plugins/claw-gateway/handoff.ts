/**
 * Method calls handed to a group's owner. A worker that gets a call naming a
 * configured group it does not serve writes it to `claw_handoffs`; the owner
 * claims it, runs it with its own handlers and writes the answer, which the
 * caller returns as if it had run locally. A call the owner never claimed
 * before the caller's deadline is abandoned (it never runs); one claimed but
 * unanswered is reported as of unknown outcome (never re-sent).
 *
 * No polling on this path: the request's NOTIFY names its group, so only the
 * owner looks, and claims it in one statement; the answer's NOTIFY names the
 * handoff, so only its caller looks, and takes the answer (reading and
 * deleting its row) in one statement. Every write is one statement outside a
 * transaction. A slow fallback check (LIMITS.clawWakeupFallbackMs) covers a
 * lost notification; on SQLite, which has none, both sides poll.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { describeError, ErrorCodes, XdogError, type Clock, type ErrorCode } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import type { SessionStore } from '../sessions/tokens.js';
import type { MethodHandler } from './methods.js';
import type { MethodConnection } from './services.js';
import { backoffMs, type WakeupTargets, type Wakeups } from './wakeups.js';
import { claimHandoffs, finishHandoff, insertHandoff, moveHandoff, pruneHandoffs, takeAnswer } from './worker-store.js';

/** Pending handoffs one check reads. */
const HANDOFFS_PER_CHECK = 100;

/** Methods whose missing `group` means "every group", not the default one: any worker answers them. */
const STORE_WIDE_WITHOUT_GROUP = new Set(['usage.summary', 'runs.list']);

/** Methods bound to the caller's connection: they never leave it. */
const CONNECTION_BOUND = new Set(['subscribe', 'unsubscribe']);

/** True when a method's params schema has a `group` key (so a call without one goes to the default group). */
export function namesGroup(schema: z.ZodType): boolean {
  return schema instanceof z.ZodObject && 'group' in schema.shape;
}

/** The group a call is for: its `group`, else the default for group methods; undefined for methods of no group. */
export function groupOfCall(method: string, schema: z.ZodType, params: unknown, defaultGroup: string | undefined): string | undefined {
  if (CONNECTION_BOUND.has(method) || !namesGroup(schema)) return undefined;
  const named = (params as { group?: unknown } | null | undefined)?.group;
  if (typeof named === 'string') return named;
  return STORE_WIDE_WITHOUT_GROUP.has(method) ? undefined : defaultGroup;
}

interface WireError {
  code: ErrorCode;
  message: string;
  hint?: string;
  details?: Record<string, unknown>;
}

function toWireError(error: unknown): WireError {
  if (XdogError.is(error)) return { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}), ...(error.details ? { details: error.details } : {}) };
  return { code: ErrorCodes.INTERNAL, message: describeError(error) };
}

function fromWireError(text: string): XdogError {
  const wire = JSON.parse(text) as WireError;
  return new XdogError(wire.code, wire.message, { hint: wire.hint, details: wire.details });
}

/** JSON of a value within the handoff limit. */
export function handoffJson(what: string, value: unknown): string {
  const text = JSON.stringify(value === undefined ? null : value);
  const bytes = Buffer.byteLength(text);
  if (bytes > LIMITS.clawHandoffBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${what} is ${bytes} bytes of JSON, over the limit of ${LIMITS.clawHandoffBytes} for a call handed to another worker`, {
      hint: 'connect to the worker that owns the group (xdog claw workers names it), or ask for less',
    });
  }
  return text;
}

/** A connection for handed-off calls: they answer once and subscribe to nothing. */
const HANDOFF_CONNECTION: MethodConnection = { notify: () => undefined, onClose: () => () => undefined };

export interface HandoffOptions {
  store: SessionStore;
  clock: Clock;
  wakeups: Wakeups;
  workerId: string;
  /** True when this worker serves the group now. */
  owns(group: string): boolean;
  /** The groups this worker serves now. */
  owned(): readonly string[];
  log(line: string): void;
}

export class Handoffs {
  readonly #options: HandoffOptions;
  /** Callers waiting for an answer, by handoff id. */
  readonly #waiters = new Map<string, () => void>();
  readonly #running = new Set<Promise<void>>();
  #handlers?: ReadonlyMap<string, MethodHandler>;
  #lastPrune = 0;
  #serving = false;

  constructor(options: HandoffOptions) {
    this.#options = options;
    options.wakeups.on('claw_handoff_done', async (targets) => {
      for (const [id, wake] of [...this.#waiters]) if (!targets || targets.has(id)) wake();
    });
  }

  /** Starts serving handoffs for this worker's groups with `handlers` (the local ones, never handing off again). */
  serve(handlers: ReadonlyMap<string, MethodHandler>): void {
    this.#handlers = handlers;
    this.#serving = true;
    this.#options.wakeups.on('claw_handoff', (targets) => this.#check(targets));
  }

  /** Takes no more handoffs (the gateway is closing); those left pending go to the group's next owner. */
  stopServing(): void {
    this.#serving = false;
  }

  /** Runs `method` on the owner of `group` and returns its answer (or throws its error). */
  async call(group: string, method: string, params: unknown): Promise<unknown> {
    const { store, clock, wakeups, workerId } = this.#options;
    // From the call's start: the whole wait stays within clawHandoffSeconds (a client's deadline covers it, core/limits.ts).
    const deadline = Date.now() + LIMITS.clawHandoffSeconds * 1000;
    const text = handoffJson(`the params of ${method}`, params ?? {});
    const lease = await store.getLease(group);
    if (!lease || lease.expiresAt <= clock.now()) {
      throw new XdogError(ErrorCodes.UNAVAILABLE, `group ${group} has no live owner`, {
        hint: 'a worker takes it over within claw.lease_seconds; retry then (`xdog claw workers` shows the pool)',
      });
    }
    const id = randomUUID();
    // The owner's wake-up rides on the insert (a lost one only delays it until its next fallback check; the row is what counts).
    await store.withStatement((sql) => insertHandoff(sql, { id, group, method, params: text, fromWorker: workerId, createdAt: clock.now() }, wakeups.along('claw_handoff', group)));
    while (Date.now() < deadline) {
      await this.#wake(id, deadline - Date.now());
      // A failed read (the store restarting) is retried at the next wake-up, within the deadline.
      const answer = await store.withStatement((sql) => takeAnswer(sql, id)).catch(() => undefined);
      if (!answer) continue;
      if (answer.error !== null) throw fromWireError(answer.error);
      return JSON.parse(answer.result ?? 'null');
    }
    if (await store.withStatement((sql) => moveHandoff(sql, id, 'pending', 'abandoned'))) {
      throw new XdogError(ErrorCodes.UNAVAILABLE, `the owner of group ${group} (pid ${lease.pid} on ${lease.host}) did not take ${method} within ${LIMITS.clawHandoffSeconds} s; it did not run`, {
        hint: 'retry; if it keeps failing, see `xdog claw workers` and that worker\'s log',
      });
    }
    throw new XdogError(ErrorCodes.UNAVAILABLE, `the owner of group ${group} took ${method} but did not answer within ${LIMITS.clawHandoffSeconds} s; its outcome is unknown`, {
      hint: 'look at the group (queue, transcript) before you send it again: it may have run',
    });
  }

  /** Resolves at the answer's wake-up, or after the fallback period (or `ms`, when sooner): the caller then looks. */
  #wake(id: string, ms: number): Promise<void> {
    const wait = this.#options.wakeups.notifies ? LIMITS.clawWakeupFallbackMs : LIMITS.clawWorkerPollMs;
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, Math.min(ms, wait)));
      this.#waiters.set(id, done);
    });
  }

  /**
   * Claims the pending handoffs of this worker's groups named by `targets` (all its groups on a
   * fallback check) and runs each (they run side by side, as local calls do). A wake-up for groups
   * it does not own costs no statement.
   */
  async #check(targets: WakeupTargets): Promise<void> {
    const { store, clock, owns, owned } = this.#options;
    if (!this.#serving) return;
    const groups = targets ? [...targets].filter((group) => owns(group)) : [...owned()];
    if (groups.length) {
      const claimed = await store.withStatement((sql) => claimHandoffs(sql, groups, HANDOFFS_PER_CHECK));
      for (const request of claimed) {
        const run = this.#run(request.id, request.method, request.params).finally(() => this.#running.delete(run));
        this.#running.add(run);
      }
      // A full batch: more may wait.
      if (claimed.length === HANDOFFS_PER_CHECK) return this.#check(targets);
    }
    if (!targets && clock.now() - this.#lastPrune > LIMITS.clawRelayRetentionSeconds * 1000) {
      this.#lastPrune = clock.now();
      await store.withStatement((sql) => pruneHandoffs(sql, clock.now() - 2 * LIMITS.clawHandoffSeconds * 1000));
    }
  }

  async #run(id: string, method: string, paramsText: string): Promise<void> {
    const { store, wakeups, log } = this.#options;
    let answer: { result: string | null; error: string | null };
    try {
      const handler = this.#handlers?.get(method);
      if (!handler) throw new XdogError(ErrorCodes.UNSUPPORTED, `the owning worker has no method "${method}"`, { hint: 'run the same xdog version and plugins on every worker' });
      const result = await handler(JSON.parse(paramsText), HANDOFF_CONNECTION);
      answer = { result: handoffJson(`the answer of ${method}`, result), error: null };
    } catch (error) {
      answer = { result: null, error: JSON.stringify(toWireError(error)) };
    }
    // The call ran: its answer is worth retrying while the store restarts (the caller waits up to its deadline).
    const deadline = Date.now() + LIMITS.clawHandoffSeconds * 1000;
    for (let attempt = 0; ; attempt++) {
      try {
        // The caller's wake-up rides on the answer (a lost one leaves the caller to its fallback check).
        await store.withStatement((sql) => finishHandoff(sql, id, answer, wakeups.along('claw_handoff_done', id)));
        return;
      } catch (error) {
        if (Date.now() >= deadline) {
          log(`could not write the answer of a handed-off ${method} (${describeError(error)}); its caller will report an unknown outcome`);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
      }
    }
  }

  /** Waits for the handoffs being run to be answered. */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#running]);
  }
}
