import { describe, expect, it } from 'vitest';
import { checkTiming, latestUpTo, nextAfter } from '../../../plugins/claw-scheduler/timing.js';

const at = (iso: string) => Date.parse(iso);

describe('scheduler timing', () => {
  it('keeps a cron job at its local time across a DST change', () => {
    const timing = { kind: 'cron', cron: '0 9 * * *', timezone: 'America/New_York' } as const;
    expect(new Date(nextAfter(timing, at('2026-03-07T15:00:00Z'))!).toISOString()).toBe('2026-03-08T13:00:00.000Z');
    expect(new Date(nextAfter(timing, at('2026-03-06T15:00:00Z'))!).toISOString()).toBe('2026-03-07T14:00:00.000Z');
  });

  it('counts intervals from the anchor and finds the latest occurrence in a span', () => {
    const timing = { kind: 'every', everySeconds: 600, anchor: at('2026-12-01T12:00:00Z') } as const;
    expect(nextAfter(timing, at('2026-12-01T12:00:00Z'))).toBe(at('2026-12-01T12:10:00Z'));
    expect(nextAfter(timing, at('2026-12-01T12:10:00Z'))).toBe(at('2026-12-01T12:20:00Z'));
    expect(latestUpTo(timing, at('2026-12-01T12:10:00Z'), at('2026-12-01T12:35:00Z'))).toBe(at('2026-12-01T12:30:00Z'));
    expect(latestUpTo(timing, at('2026-12-01T12:40:00Z'), at('2026-12-01T12:35:00Z'))).toBeNull();
  });

  it('runs a one-shot once, and refuses timings that cannot fire', () => {
    const now = at('2026-12-01T12:00:00Z');
    expect(nextAfter({ kind: 'at', runAt: now + 1000 }, now)).toBe(now + 1000);
    expect(nextAfter({ kind: 'at', runAt: now + 1000 }, now + 1000)).toBeNull();
    expect(() => checkTiming({ kind: 'at', runAt: now - 1 }, now)).toThrow(/already passed/);
    expect(() => checkTiming({ kind: 'every', everySeconds: 59, anchor: now }, now)).toThrow(/at least 60/);
    expect(() => checkTiming({ kind: 'cron', cron: 'not a cron', timezone: 'UTC' }, now)).toThrow(/not a cron expression/);
    expect(() => checkTiming({ kind: 'cron', cron: '0 0 30 2 *', timezone: 'UTC' }, now)).toThrow();
  });

  it('holds every kind of job to one floor: at most one occurrence a minute, a six-field cron included', () => {
    const now = at('2026-12-01T12:00:10Z');
    const cron = (expression: string) => checkTiming({ kind: 'cron', cron: expression, timezone: 'UTC' }, now);
    expect(() => cron('*/3 * * * * *')).toThrow('"*/3 * * * * *" has occurrences 3 s apart, but a job fires at most once every 60 s');
    // Two seconds of one minute, even when the first occurrence is the minute's last second.
    expect(() => cron('0,59 * * * * *')).toThrow(/occurrences 1 s apart/);
    expect(() => cron('5,6 0 9 * * *')).toThrow(/occurrences 1 s apart/);
    expect(cron('30 */5 * * * *')).toBe(at('2026-12-01T12:00:30Z'));
    expect(cron('* * * * *')).toBe(at('2026-12-01T12:01:00Z'));
    expect(() => checkTiming({ kind: 'every', everySeconds: 59, anchor: now }, now)).toThrow('at least 60: a job fires at most once every 60 s');
  });
});
