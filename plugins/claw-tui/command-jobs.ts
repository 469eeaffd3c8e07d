/**
 * The commands a person started and still waits for (`/mcp read …`, an
 * extension command, `/transcript`): each is a job whose gateway calls carry
 * its signal, so Escape cancels the newest job (the most specific wait)
 * before it would abort a run, and the gateway stops that work too
 * (`jobs.cancel`). Calls find their job through async context, so command
 * modules need not pass a signal along.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ErrorCodes, XdogError } from '../../core/errors.js';

interface Job {
  label: string;
  controller: AbortController;
}

export class CommandJobs {
  readonly #running: Job[] = [];
  readonly #current = new AsyncLocalStorage<Job>();

  /** Runs `work` as a job named `label` (shown while it waits, named when cancelled). */
  async run<T>(label: string, work: () => Promise<T>): Promise<T> {
    const job: Job = { label, controller: new AbortController() };
    this.#running.push(job);
    try {
      return await this.#current.run(job, work);
    } catch (error) {
      // Whatever the cancelled wait failed with, the person hears that they cancelled it.
      throw job.controller.signal.aborted ? job.controller.signal.reason : error;
    } finally {
      const at = this.#running.indexOf(job);
      if (at >= 0) this.#running.splice(at, 1);
    }
  }

  /** The signal of the job the caller runs in, if any. */
  get signal(): AbortSignal | undefined {
    return this.#current.getStore()?.controller.signal;
  }

  /** The newest running job's label. */
  get newest(): string | undefined {
    return this.#running.at(-1)?.label;
  }

  /** Cancels the newest job; its label, or undefined when none runs. */
  cancelNewest(): string | undefined {
    const job = this.#running.pop();
    if (!job) return undefined;
    // Out of the list at once: a second Escape goes to the next job, or the run.
    job.controller.abort(new XdogError(ErrorCodes.ABORTED, `${job.label} was cancelled`, { hint: 'nothing more of it is shown; run it again to see it' }));
    return job.label;
  }
}
