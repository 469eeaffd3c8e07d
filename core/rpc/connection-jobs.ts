/**
 * A connection's running requests, as jobs the client can list and cancel
 * (`jobs.list`, `jobs.cancel`). Only reads and waits are cancellable (the
 * server says which methods are): a change runs to its end, so an ABORTED
 * answer always means nothing more happened on the client's behalf. A
 * cancelled job is answered ABORTED at once, and its handler's signal fires
 * so work that can stop (an MCP read, a child wait) stops. Every job's signal
 * fires when the connection closes. Cancelling without an id takes the
 * newest cancellable job: the most specific thing the person waits for.
 */
import type { JSONRPCID } from 'json-rpc-2.0';
import { ErrorCodes, XdogError } from '../errors.js';
import { LIMITS } from '../limits.js';

/** What a handler knows about its own request. */
export interface RpcJob {
  /** Fires when the client cancels the request (`jobs.cancel`) or its connection closes. */
  readonly signal: AbortSignal;
}

/** One running request, as `jobs.list` shows it. */
export interface JobInfo {
  id: JSONRPCID;
  method: string;
  /** False for a method that changes state: it runs to its end. */
  cancellable: boolean;
  /** When it started, ms since the epoch. */
  startedAt: number;
}

/** What `jobs.cancel` answers. */
export interface JobCancelResult {
  cancelled: boolean;
  /** The job cancelled, or the one named that could not be. */
  job?: JobInfo;
  /** Why nothing was cancelled. */
  reason?: string;
}

interface RunningJob extends JobInfo {
  controller: AbortController;
}

export class ConnectionJobs {
  /** In start order: the last one is the newest. */
  readonly #running = new Map<JSONRPCID, RunningJob>();

  /** Registers a request; refuses an id already running on this connection and more than the limit at once. */
  start(id: JSONRPCID, method: string, cancellable: boolean): RpcJob {
    if (this.#running.has(id)) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `request id ${JSON.stringify(id)} is already in use by a running ${this.#running.get(id)!.method}`, { hint: 'give every request on a connection its own id' });
    }
    if (this.#running.size >= LIMITS.clawConnectionJobs) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `this connection already has ${LIMITS.clawConnectionJobs} requests running, its limit`, { hint: 'wait for answers before sending more, or cancel some with jobs.cancel' });
    }
    const job: RunningJob = { id, method, cancellable, startedAt: Date.now(), controller: new AbortController() };
    this.#running.set(id, job);
    return { signal: job.controller.signal };
  }

  /** The request was answered (or failed). */
  end(id: JSONRPCID): void {
    this.#running.delete(id);
  }

  list(): JobInfo[] {
    return [...this.#running.values()].map(publicInfo);
  }

  /** Cancels the job with `id`, else the newest cancellable one; says why not when it cannot. */
  cancel(id: JSONRPCID | undefined, reason: string): JobCancelResult {
    const job = id === undefined ? [...this.#running.values()].filter((running) => running.cancellable).at(-1) : this.#running.get(id);
    if (!job) return { cancelled: false, reason: id === undefined ? 'no cancellable request is running on this connection' : `no request ${JSON.stringify(id)} is running on this connection` };
    if (!job.cancellable) return { cancelled: false, job: publicInfo(job), reason: `${job.method} changes state, so it runs to its end` };
    this.#abort(job, reason);
    return { cancelled: true, job: publicInfo(job) };
  }

  /** The connection closed: every job's signal fires (nobody is left to answer). */
  cancelAll(reason: string): void {
    for (const job of [...this.#running.values()]) this.#abort(job, reason);
  }

  #abort(job: RunningJob, reason: string): void {
    this.#running.delete(job.id);
    job.controller.abort(new XdogError(ErrorCodes.ABORTED, `${job.method} was cancelled: ${reason}`));
  }
}

function publicInfo(job: RunningJob): JobInfo {
  return { id: job.id, method: job.method, cancellable: job.cancellable, startedAt: job.startedAt };
}

/** Settles like `work`, or rejects with the signal's reason as soon as it fires (the work may go on; nobody waits for it). */
export function untilCancelled<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
