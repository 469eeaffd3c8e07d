/**
 * The gateway's group jobs: one job queue per gateway (picked by the store,
 * see job-queue.ts), shared by the services that send jobs (the scheduler,
 * channels). It works the queue of each group the gateway serves — from
 * `groupReady` until `groupClosing` — and hands each job to the handler its
 * type names, so a group's scheduled runs and channel turns run one at a
 * time, on the worker that owns the group. Services take it in `start` and
 * give it back in `stop`; the last one stops the queue.
 */
import { ErrorCodes, XdogError } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { openGroupJobQueue, type GroupJob, type GroupJobHandler, type GroupJobQueue, type GroupJobRequest, type SendOptions, type SendOutcome } from './job-queue.js';
import { followGroups, type GatewayHost } from './services.js';

interface Shared {
  jobs: Promise<GroupJobs>;
  users: number;
}

const shared = new WeakMap<GatewayHost, Shared>();

export class GroupJobs {
  readonly #queue: GroupJobQueue;
  readonly #host: GatewayHost;
  readonly #handlers = new Map<string, GroupJobHandler>();
  /** Jobs fetched before their service registered its handler (it starts a moment later). */
  readonly #awaiting = new Map<string, Array<() => void>>();
  #stopped = false;

  private constructor(queue: GroupJobQueue, host: GatewayHost) {
    this.#queue = queue;
    this.#host = host;
  }

  /** Takes the gateway's group jobs (opening the queue and following the groups on first use). Pair with `release()`. */
  static acquire(host: GatewayHost): Promise<GroupJobs> {
    let entry = shared.get(host);
    if (!entry) {
      entry = { users: 0, jobs: GroupJobs.#open(host) };
      shared.set(host, entry);
      entry.jobs.catch(() => shared.delete(host));
    }
    entry.users++;
    return entry.jobs;
  }

  static async #open(host: GatewayHost): Promise<GroupJobs> {
    const queue = await openGroupJobQueue(host.dataSource, (line) => host.log(line), host.wakeups);
    const jobs = new GroupJobs(queue, host);
    host.log(`job queue: ${queue.kind}`);
    await followGroups(host, 'group-jobs', {
      ready: async (group) => {
        if (!jobs.#stopped) await queue.work(group.name, (job) => jobs.#dispatch(job));
      },
      closing: async (group) => {
        if (!jobs.#stopped) await queue.unwork(group.name);
      },
    });
    return jobs;
  }

  get kind(): GroupJobQueue['kind'] {
    return this.#queue.kind;
  }

  /** Whether waiting jobs outlive this process (see GroupJobQueue.durable). */
  get durable(): boolean {
    return this.#queue.durable;
  }

  /** Registers the handler of a job type; one per type. */
  handle(type: string, handler: GroupJobHandler): void {
    if (this.#handlers.has(type)) throw new XdogError(ErrorCodes.PLUGIN_INVALID, `two services handle group jobs of type "${type}"`);
    this.#handlers.set(type, handler);
    for (const wake of this.#awaiting.get(type) ?? []) wake();
    this.#awaiting.delete(type);
  }

  send(group: string, job: GroupJobRequest, options?: SendOptions): Promise<SendOutcome> {
    return this.#queue.send(group, job, options);
  }

  /** Gives it back; the last user stops the queue (running jobs end with their groups). */
  async release(): Promise<void> {
    const entry = shared.get(this.#host);
    if (!entry || --entry.users > 0) return;
    shared.delete(this.#host);
    this.#stopped = true;
    for (const wakes of this.#awaiting.values()) for (const wake of wakes) wake();
    await this.#queue.stop();
  }

  async #dispatch(job: GroupJob): Promise<void> {
    const handler = this.#handlers.get(job.type) ?? (await this.#handlerOf(job.type));
    if (!handler) {
      throw new XdogError(ErrorCodes.UNAVAILABLE, `no service handles group jobs of type "${job.type}" (waited ${LIMITS.groupJobHandlerWaitSeconds} s)`, {
        hint: 'the plugin that sent it is not selected on this worker; select the same plugins on every worker',
      });
    }
    await handler(job);
  }

  /** Waits (bounded) for a service that starts after the queue to register the type's handler. */
  async #handlerOf(type: string): Promise<GroupJobHandler | undefined> {
    if (this.#stopped) return undefined;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, LIMITS.groupJobHandlerWaitSeconds * 1000);
      timer.unref();
      const waiters = this.#awaiting.get(type) ?? [];
      waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
      this.#awaiting.set(type, waiters);
    });
    return this.#handlers.get(type);
  }
}
