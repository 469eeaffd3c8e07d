import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { runGoalCheck, startOfDay } from '../../../plugins/claw-goals/index.js';

describe("a goal's check command", () => {
  const cwd = os.tmpdir();

  it('passes on exit 0 and fails with the exit code and output otherwise', async () => {
    expect(await runGoalCheck('echo fine', cwd)).toMatchObject({ passed: true, exitCode: 0, output: 'fine\n' });
    expect(await runGoalCheck('echo broken >&2; exit 3', cwd)).toMatchObject({ passed: false, exitCode: 3, output: 'broken\n', problem: 'it exited 3' });
  });

  it('kills a check past its time or output bound and says which bound', async () => {
    const slow = await runGoalCheck('sleep 30', cwd, { timeoutMs: 200, outputBytes: 1024 });
    expect(slow).toMatchObject({ passed: false, exitCode: null });
    expect(slow.problem).toContain('longer than 200 ms (goalCheckTimeoutMs)');
    const loud = await runGoalCheck('yes', cwd, { timeoutMs: 60_000, outputBytes: 1024 });
    expect(loud).toMatchObject({ passed: false, exitCode: null });
    expect(loud.problem).toContain('passed 1024 bytes (goalCheckOutputBytes)');
    expect(Buffer.byteLength(loud.output)).toBeLessThanOrEqual(1024);
  });
});

describe('the day of a daily budget', () => {
  it('starts at local midnight of the zone', () => {
    const at = Date.parse('2026-12-02T01:30:15.250Z');
    expect(new Date(startOfDay(at, 'UTC')).toISOString()).toBe('2026-12-02T00:00:00.000Z');
    expect(new Date(startOfDay(at, 'America/New_York')).toISOString()).toBe('2026-12-01T05:00:00.000Z');
    expect(new Date(startOfDay(at, 'Asia/Tokyo')).toISOString()).toBe('2026-12-01T15:00:00.000Z');
  });
});
