/**
 * The scheduler, a gateway service. Jobs live in the store; a loop driven by
 * the gateway's clock claims each due occurrence in one transaction (its run
 * row and the job's next due time together) and hands it to the group as a
 * system input, one job at a time per group. Nothing is run twice: a run a
 * previous gateway left behind is recorded as interrupted, an occurrence
 * missed while the gateway was down runs once within the job's grace or is
 * recorded as missed, and an occurrence that finds the job's last run still
 * going is recorded as skipped.
 */
import { describeError, ErrorCodes, XdogError } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { gatewayMethod, type GatewayHost, type GatewayMethod, type GatewayService, type SystemRunResult } from '../claw-gateway/index.js';
import { JobStore, type Job, type JobRun, type Occurrence, type RunStatus } from './jobs.js';
import { ScheduleParams } from './methods.js';
import { checkTiming, defaultTimeZone, latestUpTo, nextAfter, type JobTiming } from './timing.js';
import { Waker } from './wake.js';

/** Due jobs claimed per query; the loop asks again until none is left. */
const CLAIM_BATCH = 100;
/** Runs `schedule.show` lists with a job. */
const SHOW_RUNS = 10;

/** The notification subscribed clients get when a scheduled run ended. */
export const SCHEDULE_RUN_NOTIFICATION = 'schedule.run';

function iso(at: number): string {
  return new Date(at).toISOString();
}

/** A run's status as the history records it. */
function runStatusOf(result: SystemRunResult): RunStatus {
  if (result.status === 'completed' || result.status === 'error' || result.status === 'aborted') return result.status;
  return result.status === 'dropped' ? 'interrupted' : 'error';
}

export class SchedulerService implements GatewayService {
  readonly name = 'scheduler';
  readonly capabilities = ['schedule:1'];
  readonly methods: Record<string, GatewayMethod>;
  #host?: GatewayHost;
  #jobs?: JobStore;
  #waker?: Waker;
  #loop?: Promise<void>;
  #stopped = false;
  #startedAt = 0;
  /** Per group, the tail of its chain of runs: one scheduled run at a time per group. */
  readonly #lanes = new Map<string, Promise<void>>();

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
        const { job, run } = await this.#store().claimManual(this.#groupName(params.group), params.name, this.#now());
        this.#dispatch(job, run);
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
    this.#startedAt = host.clock.now();
    const leftovers = await this.#jobs.interruptLeftovers([...host.groups.keys()], this.#startedAt);
    for (const run of leftovers) host.log(`scheduler: group ${run.group}: run ${run.id} (due ${iso(run.dueAt)}) was ${run.error ?? 'interrupted'}`);
    this.#waker = new Waker(host.clock);
    this.#loop = this.#run();
  }

  /** Stops claiming; runs already handed to a group end with the group (the next start records any left unfinished). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#waker?.dispose();
    await this.#loop;
  }

  // ---- the loop --------------------------------------------------------------

  async #run(): Promise<void> {
    const host = this.#host!;
    const groups = [...host.groups.keys()];
    while (!this.#stopped) {
      let next: number | null = null;
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
    const occurrence: Occurrence = { dueAt: latest, trigger: latest < this.#startedAt ? 'catch-up' : 'schedule' };
    if (now - latest > grace) {
      occurrence.missed = `due at ${iso(latest)} but the gateway was not running then; it is ${Math.round((now - latest) / 1000)} s late, past the job's grace of ${job.graceSeconds} s`;
    }
    if (latest > first) {
      occurrence.earlierMissed = { dueAt: first, error: `occurrences from ${iso(first)} until before ${iso(latest)} fell while the gateway was not running; only the latest is considered` };
    }
    let claimed;
    try {
      claimed = await this.#store().claim(job, occurrence, nextAfter(job.timing, now), now);
    } catch (error) {
      // Someone else changed the job (paused, removed, or another worker claimed it): the next pass sees the new state.
      if (XdogError.is(error, ErrorCodes.STALE)) return;
      throw error;
    }
    if (claimed.outcome === 'run') this.#dispatch(job, claimed.run);
    else host.log(`scheduler: group ${job.group}: job ${job.name}: ${claimed.outcome} (${claimed.run.error})`);
  }

  /** Queues a claimed run behind the group's earlier scheduled runs. */
  #dispatch(job: Job, run: JobRun): void {
    const previous = this.#lanes.get(job.group) ?? Promise.resolve();
    const lane = previous.then(() => this.#execute(job, run));
    this.#lanes.set(job.group, lane);
    void lane.finally(() => {
      if (this.#lanes.get(job.group) === lane) this.#lanes.delete(job.group);
    });
  }

  async #execute(job: Job, run: JobRun): Promise<void> {
    const host = this.#host!;
    const jobs = this.#store();
    // Left queued: the next start records it as interrupted (it never began).
    if (this.#stopped) return;
    let sessionId: string | null = null;
    try {
      const runtime = host.group(job.group);
      if (job.target === 'isolated') {
        const session = await host.store.createSession(job.group, { ...runtime.newSessionOptions(`${job.name} ${iso(run.dueAt)}`), activate: false });
        sessionId = session.id;
      }
      await jobs.start(run.id, sessionId ?? runtime.activeSessionId, this.#now());
      const result = await runtime.runSystem({ text: job.prompt, source: { kind: 'system', origin: 'schedule', id: job.id, name: job.name }, ...(sessionId ? { sessionId } : {}) });
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
