/**
 * The in-process group job queue (SQLite, one gateway): per group a FIFO
 * worked by one loop, keys deduped while a job waits or runs and for the
 * last `LIMITS.groupJobFinishedKeys` finished ones. Not durable: what waits
 * when the process ends is gone (the scheduler records such runs as
 * interrupted at the next start).
 */
import { describeError } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import type { GroupJob, GroupJobHandler, GroupJobQueue, GroupJobRequest, SendOptions, SendOutcome } from './job-queue.js';

interface Lane {
  waiting: GroupJob[];
  handler?: GroupJobHandler;
  /** The loop working the lane, while one does. */
  loop?: Promise<void>;
  /** Wakes the loop when a job arrives. */
  wake?: () => void;
}

export class InProcessGroupJobQueue implements GroupJobQueue {
  readonly kind = 'in-process';
  readonly durable = false;
  readonly #lanes = new Map<string, Lane>();
  /** Keys of jobs waiting or running, by group. */
  readonly #live = new Set<string>();
  /** Keys of finished jobs, oldest first (a Set keeps insertion order). */
  readonly #finished = new Set<string>();
  #stopped = false;

  constructor(private readonly log: (line: string) => void) {}

  async send(group: string, job: GroupJobRequest, options: SendOptions = {}): Promise<SendOutcome> {
    const id = `${group}\0${job.key}`;
    if (this.#live.has(id)) return 'duplicate';
    if (this.#finished.has(id)) {
      if (!options.replace) return 'duplicate';
      this.#finished.delete(id);
    }
    this.#live.add(id);
    const lane = this.#lane(group);
    lane.waiting.push({ ...job, group });
    lane.wake?.();
    return 'queued';
  }

  async work(group: string, handler: GroupJobHandler): Promise<void> {
    const lane = this.#lane(group);
    if (lane.handler) throw new Error(`group ${group}'s jobs are already worked here`);
    lane.handler = handler;
    lane.loop = this.#loop(group, lane);
  }

  async unwork(group: string): Promise<void> {
    const lane = this.#lanes.get(group);
    if (!lane?.handler) return;
    lane.handler = undefined;
    lane.wake?.();
    await lane.loop;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const lane of this.#lanes.values()) {
      lane.handler = undefined;
      lane.wake?.();
    }
  }

  #lane(group: string): Lane {
    let lane = this.#lanes.get(group);
    if (!lane) this.#lanes.set(group, (lane = { waiting: [] }));
    return lane;
  }

  async #loop(group: string, lane: Lane): Promise<void> {
    const handler = lane.handler!;
    while (lane.handler === handler && !this.#stopped) {
      const job = lane.waiting.shift();
      if (!job) {
        await new Promise<void>((resolve) => (lane.wake = resolve));
        lane.wake = undefined;
        continue;
      }
      try {
        await handler(job);
      } catch (error) {
        this.log(`job queue: group ${group}: job ${job.type} ${job.key} failed (not retried): ${describeError(error)}`);
      } finally {
        this.#finish(`${group}\0${job.key}`);
      }
    }
  }

  #finish(id: string): void {
    this.#live.delete(id);
    this.#finished.add(id);
    if (this.#finished.size > LIMITS.groupJobFinishedKeys) this.#finished.delete(this.#finished.values().next().value!);
  }
}
