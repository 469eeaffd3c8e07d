/**
 * Runs this worker's clients wait for in groups another worker owns: the
 * prompts it handed to the owner (their receipts) and the runs whose events
 * it relayed. A run ends with the `run.end` its owner relays; when the owner
 * is gone instead (`kill -9`: its lease expired or another worker took the
 * group), nothing would ever end it, so once a round sees the lease expired
 * or held by another owner than the one that had the run, this worker ends
 * it for its own clients: `run.end` with status `interrupted`. What the run
 * committed before stays in the transcript; nothing runs it again.
 */
import { describeError, type Clock } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import type { SessionStore } from '../sessions/tokens.js';
import { Notifications, type PromptReceipt } from './protocol.js';

/** The `errorMessage` of a run whose owner vanished. */
export const OWNER_GONE_MESSAGE = 'the worker running it stopped; the run was interrupted';

/** Runs (and queued prompts) kept per group: one running plus a full queue. */
const RUNS_PER_GROUP = LIMITS.clawQueuedInputs + 1;

interface FollowedRun {
  sessionId: string | null;
  /** The lease owner when the run was seen; undefined while it is being read. */
  owner?: string;
}

export interface FollowedRunsOptions {
  store: SessionStore;
  clock: Clock;
  /** Groups some client of this worker still follows. */
  followed(): ReadonlySet<string>;
  /** Publishes to this worker's own subscribers only (the others end their own). */
  publish(group: string, sessionId: string | null, method: string, params: unknown): void;
  log(line: string): void;
}

export class FollowedRuns {
  readonly #options: FollowedRunsOptions;
  /** group → inputId → run, oldest first. */
  readonly #runs = new Map<string, Map<string, FollowedRun>>();
  /** Lease reads of newly seen runs; a check waits for them. */
  readonly #reading = new Set<Promise<void>>();

  constructor(options: FollowedRunsOptions) {
    this.#options = options;
  }

  /** A prompt handed to the owner of its group was accepted: its clients wait for its run.end. */
  accepted(receipt: PromptReceipt): void {
    if ((receipt.status === 'started' || receipt.status === 'queued') && receipt.inputId) this.#track(receipt.group, receipt.inputId, receipt.sessionId);
  }

  /** A notification relayed from a group's owner: a run's event starts following it, its run.end ends that. */
  relayed(group: string, method: string, params: unknown): void {
    const { inputId, sessionId } = (params ?? {}) as { inputId?: unknown; sessionId?: unknown };
    if (typeof inputId !== 'string') return;
    if (method === Notifications.runEnd) this.#runs.get(group)?.delete(inputId);
    else if (method === Notifications.event) this.#track(group, inputId, typeof sessionId === 'string' ? sessionId : null);
  }

  #track(group: string, inputId: string, sessionId: string | null): void {
    let runs = this.#runs.get(group);
    if (!runs) this.#runs.set(group, (runs = new Map()));
    if (runs.has(inputId)) return;
    // Beyond one run and a full queue, the oldest entry is one whose run.end was lost: forget it.
    if (runs.size >= RUNS_PER_GROUP) runs.delete(runs.keys().next().value!);
    const run: FollowedRun = { sessionId };
    runs.set(inputId, run);
    const read = this.#options.store
      .getLease(group)
      .then((lease) => {
        // No live lease: the owner is gone already; the next check ends the run.
        run.owner = lease && lease.expiresAt > this.#options.clock.now() ? lease.ownerId : '';
      })
      .catch((error: unknown) => {
        runs.delete(inputId);
        this.#options.log(`could not read the lease of group ${group} (${describeError(error)}); its run ${inputId} is not watched for its owner stopping`);
      })
      .finally(() => this.#reading.delete(read));
    this.#reading.add(read);
  }

  /**
   * Ends the runs whose owner is gone, for this worker's clients. Call it after
   * the relayed events were read, so a run that ended on its owner's way out
   * (a graceful stop relays its run.end) is not reported interrupted.
   */
  async check(): Promise<void> {
    const { store, clock, followed, publish } = this.#options;
    await Promise.allSettled([...this.#reading]);
    const following = followed();
    for (const [group, runs] of [...this.#runs]) {
      if (!following.has(group) || !runs.size) {
        this.#runs.delete(group);
        continue;
      }
      const lease = await store.getLease(group);
      const live = lease && lease.expiresAt > clock.now() ? lease.ownerId : undefined;
      for (const [inputId, run] of [...runs]) {
        if (run.owner === undefined || (live !== undefined && run.owner === live)) continue;
        runs.delete(inputId);
        publish(group, run.sessionId, Notifications.runEnd, { group, sessionId: run.sessionId, inputId, status: 'interrupted', errorMessage: OWNER_GONE_MESSAGE });
      }
    }
  }
}
