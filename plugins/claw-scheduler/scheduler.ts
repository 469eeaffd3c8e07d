/**
 * The scheduler, a gateway service. Jobs live in the store; a loop driven by
 * the gateway's clock claims each due occurrence of the groups this gateway
 * serves in one transaction (its run row and the job's next due time
 * together) and sends the run as a job (`schedule.run`, key `run:<id>`) to
 * its group's job queue (GroupJobs), whose owner runs it as a system input,
 * one job at a time per group. Nothing is run twice: only the worker that
 * moves the run row from queued to running runs it; a run a previous owner
 * had started is recorded as interrupted when the group is taken over, an
 * occurrence missed while no gateway ran runs once within the job's grace or
 * is recorded as missed, and an occurrence that finds the job's last run
 * still going is recorded as skipped.
 */
import { describeError, ErrorCodes, XdogError } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { followGroups, gatewayMethod, GroupJobs, spendRefusal, type GatewayHost, type GatewayMethod, type GatewayService, type GroupJob, type SystemRunResult } from '../claw-gateway/tokens.js';
import { JobStore, type Job, type JobRun, type Occurrence, type RunStatus } from './jobs.js';
import { ScheduleParams } from './methods.js';
import { checkTiming, defaultTimeZone, latestUpTo, nextAfter, type JobTiming } from './timing.js';
import { Waker } from './wake.js';

/** Due jobs claimed per query; the loop asks again until none is left. */
const CLAIM_BATCH = 100;
/** Runs `schedule.show` lists with a job. */
const SHOW_RUNS = 10;

/** The group job type of a scheduled run. */
export const SCHEDULE_RUN_JOB = 'schedule.run';

/** The queue key of a run: one job per run row. */
const runKey = (runId: number): string => `run:${runId}`;

/** The notification subscribed clients get when a scheduled run ended. */
export const SCHEDULE_RUN_NOTIFICATION = 'schedule.run';

function iso(at: number): string {
  return new Date(at).toISOString();
}

/** A run's status as the history records it. */
function runStatusOf(result: SystemRunResult): RunStatus {
  if (result.status === 'completed' || result.status === 'error' || result.status === 'aborted' || result.status === 'interrupted') return result.status;
  return result.status === 'dropped' ? 'interrupted' : 'error';
}

export class SchedulerService implements GatewayService {
  readonly name = 'scheduler';
  readonly capabilities = ['schedule:1'];
  readonly methods: Record<string, GatewayMethod>;
  #host?: GatewayHost;
  #jobs?: JobStore;
  #queue?: GroupJobs;
  #waker?: Waker;
  #loop?: Promise<void>;
  #stopped = false;
  /** Per group served here, since when (its takeover): an occurrence due before fell while nobody here served it, so it is a catch-up. */
  readonly #servedSince = new Map<string, number>();
  /** Per group served here, its takeover (leftover runs settled); jobs and claims of the group wait for it. */
  readonly #takeovers = new Map<string, Promise<void>>();
  /** Groups whose takeover is done: the loop claims their due jobs. */
  readonly #taken = new Set<string>();

  constructor() {
    const p = ScheduleParams;
    this.methods = {
      'schedule.add': gatewayMethod(p['schedule.add'], (params) => this.#add(params)),
      'schedule.list': gatewayMethod(p['schedule.list'], (params) => this.#store().list(this.#groupName(params.group))),
      'schedule.show': gatewayMethod(p['schedule.show'], async (params) => {
        const group = this.#groupName(params.group);
        return { job: await this.#store().get(group, params.name), runs: await this.#store().history(group, { jobName: params.name, limit: SHOW_RUNS }) };
      }),
      'schedule.pause': gatewayMethod(p['schedule.pause'], (params) => this.#store().setPaused(this.#groupName(params.group), params.name, true, () => null, this.#now())),
      'schedule.resume': gatewayMethod(p['schedule.resume'], async (params) => {
        const now = this.#now();
        const job = await this.#store().setPaused(this.#groupName(params.group), params.name, false, (found) => nextAfter(found.timing, now), now);
        this.#waker?.poke();
        return job;
      }),
      'schedule.remove': gatewayMethod(p['schedule.remove'], (params) => this.#store().remove(this.#groupName(params.group), params.name)),
      'schedule.run_now': gatewayMethod(p['schedule.run_now'], async (params) => {
        const group = this.#groupName(params.group);
        await this.#takeOver(group);
        const { run } = await this.#store().claimManual(group, params.name, this.#now());
        await this.#send(run);
        return run;
      }),
      'schedule.history': gatewayMethod(p['schedule.history'], (params) =>
        this.#store().history(this.#groupName(params.group), { jobName: params.name, limit: params.limit ?? LIMITS.scheduleHistoryPage, beforeId: params.beforeId }),
      ),
    };
  }

  async start(host: GatewayHost): Promise<void> {
    this.#host = host;
    this.#jobs = new JobStore(host.store);
    this.#waker = new Waker(host.clock);
    this.#queue = await GroupJobs.acquire(host);
    this.#queue.handle(SCHEDULE_RUN_JOB, (job) => this.#runJob(job));
    await followGroups(host, 'scheduler', {
      ready: async (group) => {
        if (this.#stopped) return;
        await this.#takeOver(group.name);
        this.#waker?.poke();
      },
      closing: (group) => {
        this.#servedSince.delete(group.name);
        this.#takeovers.delete(group.name);
        this.#taken.delete(group.name);
      },
    });
    this.#loop = this.#run();
  }

  /** Stops claiming; runs already handed to a group end with the group (a run left queued runs, or is recorded, at the group's next takeover). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#waker?.dispose();
    await this.#loop;
    await this.#queue?.release();
  }

  // ---- taking a group over -----------------------------------------------------

  /** Settles the runs a previous owner of the group left (once per time this gateway takes the group). */
  #takeOver(group: string): Promise<void> {
    let takeover = this.#takeovers.get(group);
    if (!takeover) {
      this.#servedSince.set(group, this.#now());
      takeover = this.#settleLeftovers(group);
      this.#takeovers.set(group, takeover);
      takeover.then(
        () => this.#taken.add(group),
        () => this.#takeovers.delete(group),
      );
    }
    return takeover;
  }

  async #settleLeftovers(group: string): Promise<void> {
    const host = this.#host!;
    const queue = this.#queue!;
    const { interrupted, queued } = await this.#store().takeOver(group, this.#now(), { requeue: queue.durable });
    for (const run of interrupted) host.log(`scheduler: group ${run.group}: run ${run.id} (due ${iso(run.dueAt)}) was ${run.error ?? 'interrupted'}`);
    // Its job may still wait in the queue (then this is a duplicate), or it was lost with its consumer: the run row decides it runs once.
    for (const run of queued) await queue.send(group, { key: runKey(run.id), type: SCHEDULE_RUN_JOB, data: { runId: run.id } }, { replace: true });
  }

  // ---- the loop --------------------------------------------------------------

  async #run(): Promise<void> {
    const host = this.#host!;
    while (!this.#stopped) {
      let next: number | null = null;
      const groups = [...host.groups.keys()].filter((group) => this.#taken.has(group));
      try {
        await this.#claimDue(groups);
        next = await this.#store().nextDueAt(groups);
      } catch (error) {
        host.log(`scheduler: ${describeError(error)}`);
      }
      if (this.#stopped) break;
      await this.#waker!.until(next ?? host.clock.now() + LIMITS.scheduleWakeSeconds * 1000);
    }
  }

  async #claimDue(groups: readonly string[]): Promise<void> {
    for (;;) {
      const now = this.#now();
      const due = await this.#store().due(groups, now, CLAIM_BATCH);
      for (const job of due) {
        if (this.#stopped) return;
        await this.#claim(job, now);
      }
      if (due.length < CLAIM_BATCH) return;
    }
  }

  /** Decides what the job's due occurrence becomes (run, catch-up, missed, skipped) and records it. */
  async #claim(job: Job, now: number): Promise<void> {
    const host = this.#host!;
    const first = job.nextRunAt!;
    const latest = latestUpTo(job.timing, first, now) ?? first;
    const grace = job.graceSeconds * 1000;
    const occurrence: Occurrence = { dueAt: latest, trigger: latest < (this.#servedSince.get(job.group) ?? now) ? 'catch-up' : 'schedule' };
    // What the gap was: with workers, the group had no owner (its last one stopped or died, or gave it back) until this one took it.
    const absent = host.wakeups ? `no worker owned group ${job.group}` : 'the gateway was not running';
    if (now - latest > grace) {
      occurrence.missed = `due at ${iso(latest)} but ${absent} then; it is ${Math.round((now - latest) / 1000)} s late, past the job's grace of ${job.graceSeconds} s`;
    }
    if (latest > first) {
      occurrence.earlierMissed = { dueAt: first, error: `occurrences from ${iso(first)} until before ${iso(latest)} fell while ${absent}; only the latest is considered` };
    }
    // The interval floor holds for jobs stored before it did too: the next occurrence is at least that far from this one.
    const next = nextAfter(job.timing, Math.max(now, latest + LIMITS.scheduleIntervalSecondsMin * 1000 - 1));
    let claimed;
    try {
      claimed = await this.#store().claim(job, occurrence, next, now);
    } catch (error) {
      // Someone else changed the job (paused, removed, or another worker claimed it): the next pass sees the new state.
      if (XdogError.is(error, ErrorCodes.STALE)) return;
      throw error;
    }
    if (claimed.outcome === 'run') await this.#send(claimed.run);
    else host.log(`scheduler: group ${job.group}: job ${job.name}: ${claimed.outcome} (${claimed.run.error})`);
  }

  /** Sends a claimed run to its group's queue; its owner runs it. */
  async #send(run: JobRun): Promise<void> {
    await this.#queue!.send(run.group, { key: runKey(run.id), type: SCHEDULE_RUN_JOB, data: { runId: run.id } });
  }

  /** A `schedule.run` job, on the worker that owns the group. */
  async #runJob(queued: GroupJob): Promise<void> {
    await this.#takeOver(queued.group);
    const found = await this.#store().runWithJob(Number(queued.data.runId));
    // Ran already, or recorded interrupted: a job for it that arrives again does nothing.
    if (!found || found.run.status !== 'queued') return;
    await this.#execute(found.job, found.run);
  }

  async #execute(job: Job, run: JobRun): Promise<void> {
    const host = this.#host!;
    const jobs = this.#store();
    // Left queued: the group's next takeover sends it again (durable queue) or records it interrupted.
    if (this.#stopped) return;
    let sessionId: string | null = null;
    try {
      const runtime = host.group(job.group);
      if (job.target === 'isolated') {
        const session = await host.store.createSession(job.group, { ...runtime.newSessionOptions(`${job.name} ${iso(run.dueAt)}`), activate: false });
        sessionId = session.id;
      }
      // Someone else moved it on first (it ran, or was recorded interrupted): it does not run here.
      if (!(await jobs.start(run.id, sessionId ?? runtime.activeSessionId, this.#now()))) return;
      const source = { kind: 'system', origin: 'schedule', id: job.id, name: job.name } as const;
      // A spent budget stops the job here, before its input exists: the run is recorded skipped, with the budget and how to raise it.
      const refusal = await spendRefusal(host.hooks, { phase: 'submit', group: job.group, source });
      if (refusal) {
        const error = `${refusal.message} [BUDGET_EXCEEDED]; ${refusal.hint}`;
        await jobs.finish(run.id, { status: 'skipped', error, sessionId, usage: null, endedAt: this.#now() });
        host.publish(job.group, null, SCHEDULE_RUN_NOTIFICATION, { group: job.group, job: job.name, runId: run.id, status: 'skipped', error, errorCode: ErrorCodes.BUDGET_EXCEEDED });
        return;
      }
      const result = await runtime.runSystem({ text: job.prompt, source, ...(sessionId ? { sessionId } : {}) });
      const status = runStatusOf(result);
      await jobs.finish(run.id, { status, error: result.errorMessage ?? null, sessionId: result.sessionId || sessionId, usage: result.usage, endedAt: result.endedAt });
      host.publish(job.group, null, SCHEDULE_RUN_NOTIFICATION, { group: job.group, job: job.name, runId: run.id, status, sessionId: result.sessionId, ...(result.errorMessage ? { error: result.errorMessage } : {}) });
    } catch (error) {
      const message = describeError(error);
      host.log(`scheduler: group ${job.group}: job ${job.name}: run ${run.id} failed: ${message}`);
      await jobs.finish(run.id, { status: 'error', error: message, sessionId, usage: null, endedAt: this.#now() }).catch((failure: unknown) => host.log(`scheduler: recording run ${run.id} failed: ${describeError(failure)}`));
      host.publish(job.group, null, SCHEDULE_RUN_NOTIFICATION, { group: job.group, job: job.name, runId: run.id, status: 'error', error: message });
    }
  }

  // ---- methods -----------------------------------------------------------------

  async #add(params: (typeof ScheduleParams)['schedule.add']['_output']): Promise<Job> {
    const host = this.#host!;
    const group = this.#groupName(params.group);
    const now = this.#now();
    const timing: JobTiming =
      params.cron !== undefined
        ? { kind: 'cron', cron: params.cron, timezone: params.timezone ?? defaultTimeZone(host.kernel.config.claw?.groups?.[group]?.timezone) }
        : params.everySeconds !== undefined
          ? { kind: 'every', everySeconds: params.everySeconds, anchor: now }
          : { kind: 'at', runAt: params.at! };
    const firstRunAt = checkTiming(timing, now);
    const job = await this.#store().add(
      { group, name: params.name, timing, target: params.target ?? 'active', prompt: params.prompt, graceSeconds: params.graceSeconds ?? LIMITS.scheduleGraceSecondsDefault, paused: params.paused ?? false, firstRunAt: params.paused ? null : firstRunAt },
      now,
    );
    this.#waker?.poke();
    return job;
  }

  #store(): JobStore {
    if (!this.#jobs) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the scheduler has not started');
    return this.#jobs;
  }

  #groupName(name: string | undefined): string {
    return this.#host!.group(name).name;
  }

  #now(): number {
    return this.#host!.clock.now();
  }
}
