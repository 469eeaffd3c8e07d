/** Shared parts of `xdog claw schedule *`: the job-name argument, duration and time parsing, and the plain-text views. */
import { Args } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import type { Job, JobRun } from '../../../plugins/claw-scheduler/index.js';
import { clean, table } from './render.js';

export const jobNameArg = Args.string({ description: 'the job name (unique in its group)', required: true });

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** "90s", "15m", "2h", "1d" (or plain seconds) as seconds. */
export function parseDuration(text: string, flag: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!match) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${flag} "${text}" is not a duration`, { hint: 'a whole number with s, m, h or d, e.g. 15m' });
  return Number(match[1]) * UNITS[match[2] || 's']!;
}

/** An ISO 8601 time with its offset ("2026-12-24T09:00:00+01:00", "...Z") as epoch ms. */
export function parseTime(text: string, flag: string): number {
  const at = /(Z|[+-]\d{2}:?\d{2})$/i.test(text.trim()) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${flag} "${text}" is not a time with a UTC offset`, { hint: 'e.g. 2026-12-24T09:00:00Z or 2026-12-24T09:00:00+01:00' });
  return at;
}

function time(ms: number | null | undefined): string {
  return ms ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : '-';
}

function seconds(total: number): string {
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['m', 60]] as const) if (total % size === 0) return `${total / size}${unit}`;
  return `${total}s`;
}

export function timingText(job: Job): string {
  const { timing } = job;
  if (timing.kind === 'cron') return `cron "${timing.cron}" ${timing.timezone}`;
  if (timing.kind === 'every') return `every ${seconds(timing.everySeconds)}`;
  return `at ${time(timing.runAt)}`;
}

export function renderJobs(jobs: Job[]): string {
  if (jobs.length === 0) return 'no scheduled jobs (add one with xdog claw schedule add)';
  return table(
    ['JOB', 'WHEN', 'TARGET', 'NEXT', 'PROMPT'],
    jobs.map((job) => [job.name, timingText(job), job.target, job.paused ? 'paused' : job.nextRunAt === null ? 'done' : time(job.nextRunAt), clean(job.prompt, 48)]),
  );
}

export function renderJob(job: Job): string {
  return [
    `job ${job.name} (group ${job.group}, id ${job.id})`,
    `when: ${timingText(job)}; grace ${seconds(job.graceSeconds)}`,
    `target: ${job.target === 'active' ? "the group's active session" : 'a fresh isolated session per run'}`,
    `next: ${job.paused ? 'paused' : job.nextRunAt === null ? 'none (done)' : time(job.nextRunAt)}`,
    `prompt: ${clean(job.prompt, 200)}`,
  ].join('\n');
}

export function renderRuns(runs: JobRun[], jobs?: ReadonlyMap<string, string>): string {
  if (runs.length === 0) return 'no runs yet';
  return table(
    ['RUN', ...(jobs ? ['JOB'] : []), 'DUE', 'TRIGGER', 'STATUS', 'DURATION', 'TOKENS IN/OUT', 'SESSION', 'ERROR'],
    runs.map((run) => [
      String(run.id),
      ...(jobs ? [jobs.get(run.jobId) ?? run.jobId] : []),
      time(run.dueAt),
      run.trigger,
      run.status,
      run.durationMs === null ? '-' : `${run.durationMs} ms`,
      run.inputTokens === null ? '-' : `${run.inputTokens}/${run.outputTokens ?? 0}`,
      run.sessionId ?? '-',
      run.error ? clean(run.error, 120) : '',
    ]),
  );
}
