/** The scheduler's JobStore on a real claw store (SQLite and PostgreSQL): jobs, claims, runs and their history. */
import { expect, it } from 'vitest';
import { XdogError, zeroUsage } from '../../../core/index.js';
import { JobStore, type NewJob } from '../../../plugins/claw-scheduler/jobs.js';
import { describeStores, type StoreKind } from '../../support/stores.js';
import { openTestStoreOn } from '../sessions/helpers.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const MINUTE = 60_000;

async function jobStore(kind: StoreKind): Promise<JobStore> {
  const { store } = await openTestStoreOn(kind);
  await store.ensureGroup('main');
  await store.ensureGroup('other');
  return new JobStore(store);
}

function newJob(name: string, overrides: Partial<NewJob> = {}): NewJob {
  return {
    group: 'main',
    name,
    timing: { kind: 'every', everySeconds: 600, anchor: NOW },
    target: 'isolated',
    prompt: `run ${name}`,
    graceSeconds: 300,
    paused: false,
    firstRunAt: NOW + 10 * MINUTE,
    ...overrides,
  };
}

async function failure(promise: Promise<unknown>): Promise<XdogError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(XdogError.is(error), String(error)).toBe(true);
  return error as XdogError;
}

describeStores('JobStore', (kind) => {
  it('adds jobs with numbers and booleans read back as such, refuses a taken name, pauses and lists', async () => {
    const jobs = await jobStore(kind);
    const added = await jobs.add(newJob('digest'), NOW);
    expect(added).toMatchObject({ group: 'main', name: 'digest', paused: false, nextRunAt: NOW + 10 * MINUTE, createdAt: NOW, updatedAt: NOW, graceSeconds: 300 });
    expect(added.timing).toEqual({ kind: 'every', everySeconds: 600, anchor: NOW });
    expect((await failure(jobs.add(newJob('digest'), NOW))).code).toBe('CONFLICT');
    await jobs.add(newJob('once', { timing: { kind: 'at', runAt: NOW + MINUTE }, firstRunAt: NOW + MINUTE }), NOW);
    await jobs.add(newJob('elsewhere', { group: 'other' }), NOW);

    const paused = await jobs.setPaused('main', 'digest', true, () => null, NOW + 1);
    expect(paused).toMatchObject({ paused: true, nextRunAt: null });
    expect((await jobs.list('main')).map((job) => [job.name, job.paused])).toEqual([
      ['digest', true],
      ['once', false],
    ]);
    expect(await jobs.nextDueAt(['main'])).toBe(NOW + MINUTE);
    expect((await jobs.setPaused('main', 'digest', false, () => NOW + 20 * MINUTE, NOW + 2)).nextRunAt).toBe(NOW + 20 * MINUTE);
  });

  it('claims a due occurrence once: the run row and the next due time move together; a stale claim is refused', async () => {
    const jobs = await jobStore(kind);
    await jobs.add(newJob('digest'), NOW);
    const [due] = await jobs.due(['main', 'other'], NOW + 10 * MINUTE, 10);
    expect(due?.name).toBe('digest');
    const claim = await jobs.claim(due!, { dueAt: NOW + 10 * MINUTE, trigger: 'schedule' }, NOW + 20 * MINUTE, NOW + 10 * MINUTE);
    expect(claim).toMatchObject({ outcome: 'run', run: { status: 'queued', dueAt: NOW + 10 * MINUTE, trigger: 'schedule' } });
    expect((await failure(jobs.claim(due!, { dueAt: NOW + 10 * MINUTE, trigger: 'schedule' }, NOW + 20 * MINUTE, NOW + 10 * MINUTE))).code).toBe('STALE');
    expect(await jobs.due(['main'], NOW + 10 * MINUTE, 10)).toEqual([]);

    // While it is queued the next occurrence is skipped, and a manual run is refused.
    const [next] = await jobs.due(['main'], NOW + 20 * MINUTE, 10);
    expect((await jobs.claim(next!, { dueAt: NOW + 20 * MINUTE, trigger: 'schedule' }, NOW + 30 * MINUTE, NOW + 20 * MINUTE)).outcome).toBe('skipped');
    expect((await failure(jobs.claimManual('main', 'digest', NOW + 21 * MINUTE))).code).toBe('BUSY');

    await jobs.start(claim.run.id, 'session-1', NOW + 10 * MINUTE + 5);
    await jobs.finish(claim.run.id, { status: 'completed', error: null, sessionId: null, usage: { ...zeroUsage(), input: 7, output: 3 }, endedAt: NOW + 10 * MINUTE + 65 });
    const history = await jobs.history('main', { jobName: 'digest', limit: 10 });
    expect(history.map((run) => run.status)).toEqual(['skipped', 'completed']);
    expect(history[1]).toMatchObject({ sessionId: 'session-1', startedAt: NOW + 10 * MINUTE + 5, durationMs: 60, inputTokens: 7, outputTokens: 3 });
    expect(await jobs.history('main', { limit: 10, beforeId: history[0]!.id })).toEqual([history[1]]);
  });

  it('records leftovers of a stopped gateway as interrupted, and removes a job with its history once idle', async () => {
    const jobs = await jobStore(kind);
    await jobs.add(newJob('digest'), NOW);
    const { run } = await jobs.claimManual('main', 'digest', NOW);
    await jobs.start(run.id, null, NOW + 1);
    expect((await failure(jobs.remove('main', 'digest'))).code).toBe('BUSY');
    const leftovers = await jobs.interruptLeftovers(['main', 'other'], NOW + 2);
    expect(leftovers.map((left) => [left.id, left.status])).toEqual([[run.id, 'interrupted']]);
    expect((await jobs.remove('main', 'digest')).name).toBe('digest');
    expect(await jobs.list('main')).toEqual([]);
    expect(await jobs.history('main', { limit: 10 })).toEqual([]);
  });
});
