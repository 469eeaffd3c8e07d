/**
 * A connection's running requests, as jobs the client can list and cancel
 * (`jobs.list`, `jobs.cancel`). Each request gets an AbortSignal that fires
 * when the client cancels it or the connection closes; the server stops
 * waiting for a cancelled request at once and answers it ABORTED, and a
 * handler that can stop its work (an MCP read, a child wait) stops it too.
 * Cancelling without an id takes the newest job: the most specific thing the
 * person is waiting for.
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
  /** When it started, ms since the epoch. */
  startedAt: number;
}

/** What `jobs.cancel` answers. */
export interface JobCancelResult {
  cancelled: boolean;
  /** The job cancelled, when there was one. */
  job?: JobInfo;
}

interface RunningJob extends JobInfo {
  controller: AbortController;
}

export class ConnectionJobs {
  /** In start order: the last one is the newest. */
  readonly #running = new Map<JSONRPCID, RunningJob>();

  /** Registers a request; refuses an id already running on this connection and more than the limit at once. */
  start(id: JSONRPCID, method: string): RpcJob {
    if (this.#running.has(id)) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `request id ${JSON.stringify(id)} is already in use by a running ${this.#running.get(id)!.method}`, { hint: 'give every request on a connection its own id' });
    }
    if (this.#running.size >= LIMITS.clawConnectionJobs) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `this connection already has ${LIMITS.clawConnectionJobs} requests running, its limit`, { hint: 'wait for answers before sending more, or cancel some with jobs.cancel' });
    }
    const job: RunningJob = { id, method, startedAt: Date.now(), controller: new AbortController() };
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

  /** Cancels the job with `id`, else the newest one; `{cancelled: false}` when there is none. */
  cancel(id: JSONRPCID | undefined, reason: string): JobCancelResult {
    const job = id === undefined ? [...this.#running.values()].at(-1) : this.#running.get(id);
    if (!job) return { cancelled: false };
    this.#running.delete(job.id);
    job.controller.abort(new XdogError(ErrorCodes.ABORTED, `${job.method} was cancelled: ${reason}`));
    return { cancelled: true, job: publicInfo(job) };
  }

  /** The connection closed: every job's signal fires. */
  cancelAll(reason: string): void {
    for (const id of [...this.#running.keys()]) this.cancel(id, reason);
  }
}

function publicInfo(job: RunningJob): JobInfo {
  return { id: job.id, method: job.method, startedAt: job.startedAt };
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
