/**
 * What wakes a run that waits for an approval: an answer taken in this
 * process wakes its waiter at once; one taken by another worker arrives as a
 * NOTIFY on `claw_approval` (worker mode on PostgreSQL). The waiter reads its
 * row on every wake-up and at least every `fallbackMs`, so a lost
 * notification only delays an answer, and expiry is noticed. Only wake-ups
 * live here, never an answer: the row in the store is the truth.
 */
import { LIMITS, describeError } from '../../core/index.js';
import type { GatewayHost, Wakeups, WakeupTargets } from '../claw-gateway/tokens.js';

const CHANNEL = 'claw_approval';

export class ApprovalWaits {
  readonly #waiters = new Map<number, Set<() => void>>();
  readonly #wakeups: Wakeups | undefined;
  readonly #log: (line: string) => void;
  /** The longest a waiter sleeps between two reads of its row. */
  readonly fallbackMs: number;

  constructor(wakeups: Wakeups | undefined, log: (line: string) => void, fallbackMs?: number) {
    this.#wakeups = wakeups;
    this.#log = log;
    // Workers that cannot notify each other (SQLite) must poll; otherwise every answer wakes its waiter.
    this.fallbackMs = fallbackMs ?? (wakeups && !wakeups.notifies ? LIMITS.clawWorkerPollMs : wakeups ? Math.max(LIMITS.approvalWaitFallbackMs, LIMITS.clawWakeupFallbackMs) : LIMITS.approvalWaitFallbackMs);
    wakeups?.on(CHANNEL, async (targets) => this.#wake(targets));
  }

  /** Sleeps until approval `id` may have news, `fallbackMs` pass or `signal` aborts. */
  wait(id: number, signal: AbortSignal, maxMs = this.fallbackMs): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiters = this.#waiters.get(id) ?? new Set<() => void>();
      this.#waiters.set(id, waiters);
      const timer = setTimeout(done, Math.max(0, Math.min(maxMs, this.fallbackMs)));
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      const wake = (): void => {
        waiters.delete(wake);
        done();
      };
      waiters.add(wake);
      signal.addEventListener('abort', wake, { once: true });
    }).finally(() => {
      if (this.#waiters.get(id)?.size === 0) this.#waiters.delete(id);
    });
  }

  /** Approval `id` was answered here: its waiter in this process wakes now, one on another worker through NOTIFY. */
  answered(id: number): void {
    this.#wake(new Set([String(id)]));
    this.#wakeups?.notify(CHANNEL, String(id)).catch((error: unknown) => this.#log(`could not wake the owner of approval ${id} (${describeError(error)}); it reads the answer within ${this.fallbackMs} ms`));
  }

  #wake(targets: WakeupTargets): void {
    for (const [id, waiters] of this.#waiters) {
      if (targets && !targets.has(String(id))) continue;
      for (const wake of [...waiters]) wake();
    }
  }
}

/** One ApprovalWaits per store the gateway serves (its services and channels share the host's store). */
const byStore = new WeakMap<object, ApprovalWaits>();

export function approvalWaitsOf(host: GatewayHost): ApprovalWaits {
  let waits = byStore.get(host.store);
  if (!waits) {
    waits = new ApprovalWaits(host.wakeups, (line) => host.log(line));
    byStore.set(host.store, waits);
  }
  return waits;
}
