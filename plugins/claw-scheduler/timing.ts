/**
 * When a job is due: cron expressions (croner, in an IANA zone, DST-correct),
 * fixed intervals counted from the job's creation, and one-shots. All pure:
 * the scheduler asks for times and drives its own timer from the clock, so
 * a fake clock in tests moves it without real waiting.
 */
import { Cron } from 'croner';
import { ErrorCodes, XdogError } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';

/** How a job repeats. */
export type JobTiming =
  | { kind: 'cron'; cron: string; timezone: string }
  | { kind: 'every'; everySeconds: number; /** Occurrences fall on anchor + k·interval. */ anchor: number }
  | { kind: 'at'; runAt: number };

function cronOf(cron: string, timezone: string): Cron {
  try {
    return new Cron(cron, { timezone, paused: true });
  } catch (error) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `"${cron}" is not a cron expression croner accepts: ${error instanceof Error ? error.message : String(error)}`, {
      hint: 'five fields (minute hour day-of-month month day-of-week), e.g. "0 9 * * 1-5"; a sixth leading field gives the second of the minute',
    });
  }
}

/**
 * Occurrences of a cron expression compared to find its shortest gap. Three
 * suffice below a minute: two seconds of one minute fire back to back, and at
 * most the first occurrence is a minute's last second.
 */
const CRON_GAP_SAMPLE = 8;

/** The shortest gap, in ms, between the first occurrences of a cron timing after `now` (Infinity when it fires once or never). */
function shortestCronGap(timing: Extract<JobTiming, { kind: 'cron' }>, now: number): number {
  const runs = cronOf(timing.cron, timing.timezone)
    .nextRuns(CRON_GAP_SAMPLE, new Date(now))
    .map((run) => run.getTime());
  let gap = Infinity;
  for (let index = 1; index < runs.length; index++) gap = Math.min(gap, runs[index]! - runs[index - 1]!);
  return gap;
}

/**
 * Refuses a timing that can never fire or fires too often; returns its first
 * occurrence after `now`. One rule for every kind: a job fires at most once
 * every LIMITS.scheduleIntervalSecondsMin seconds (a six-field cron with a
 * seconds step is refused like a short --every).
 */
export function checkTiming(timing: JobTiming, now: number): number {
  const floor = LIMITS.scheduleIntervalSecondsMin;
  if (timing.kind === 'every' && (!Number.isSafeInteger(timing.everySeconds) || timing.everySeconds < floor)) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `an interval must be a whole number of seconds, at least ${floor}: a job fires at most once every ${floor} s`, { hint: 'e.g. --every 15m' });
  }
  if (timing.kind === 'cron') {
    const gap = shortestCronGap(timing, now);
    if (gap < floor * 1000) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `"${timing.cron}" has occurrences ${gap / 1000} s apart, but a job fires at most once every ${floor} s`, {
        hint: 'use five fields (one-minute resolution), or a single number as the leading seconds field, e.g. "30 */5 * * * *"',
      });
    }
  }
  if (timing.kind === 'at' && timing.runAt <= now) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the time ${new Date(timing.runAt).toISOString()} has already passed`, { hint: 'give a time in the future' });
  }
  const first = nextAfter(timing, now);
  if (first === null) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'this schedule never fires', { hint: 'check the cron expression (e.g. a 30th of February never comes)' });
  return first;
}

/** The first occurrence strictly after `after`, or null when there is none (a one-shot's time has passed). */
export function nextAfter(timing: JobTiming, after: number): number | null {
  switch (timing.kind) {
    case 'cron':
      return cronOf(timing.cron, timing.timezone).nextRun(new Date(after))?.getTime() ?? null;
    case 'every': {
      const step = timing.everySeconds * 1000;
      const done = Math.floor((after - timing.anchor) / step);
      return timing.anchor + (Math.max(done, -1) + 1) * step;
    }
    case 'at':
      return timing.runAt > after ? timing.runAt : null;
  }
}

/** The latest occurrence at or before `now` (and not before `from`), or null when none fell in [from, now]. */
export function latestUpTo(timing: JobTiming, from: number, now: number): number | null {
  let latest: number | null;
  switch (timing.kind) {
    case 'cron':
      latest = cronOf(timing.cron, timing.timezone).previousRuns(1, new Date(now + 1))[0]?.getTime() ?? null;
      break;
    case 'every': {
      const step = timing.everySeconds * 1000;
      latest = now < timing.anchor ? null : timing.anchor + Math.floor((now - timing.anchor) / step) * step;
      break;
    }
    case 'at':
      latest = timing.runAt <= now ? timing.runAt : null;
  }
  return latest !== null && latest >= from ? latest : null;
}

/** The zone a cron job uses when none is given: the group's, else the system's. */
export function defaultTimeZone(groupZone: string | undefined): string {
  return groupZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}
