/** The scheduler's JobStore on a real claw store (SQLite and PostgreSQL): jobs, claims, runs and their history. */
import { expect, it } from 'vitest';
import { XdogError, zeroUsage } from '../../../core/index.js';
import { JobStore, type NewJob } from '../../../plugins/claw-scheduler/jobs.js';
import { describeStores, type StoreKind } from '../../support/stores.js';
import { countRollbacks, openTestStoreOn } from '../sessions/helpers.js';

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

  it('records a run the previous owner started as interrupted at takeover, and removes a job with its history once idle', async () => {
    const jobs = await jobStore(kind);
    await jobs.add(newJob('digest'), NOW);
    const { run } = await jobs.claimManual('main', 'digest', NOW);
    await jobs.start(run.id, null, NOW + 1);
    expect((await failure(jobs.remove('main', 'digest'))).code).toBe('BUSY');
    const { interrupted, queued } = await jobs.takeOver('main', NOW + 2, { requeue: true });
    expect(interrupted.map((left) => [left.id, left.status])).toEqual([[run.id, 'interrupted']]);
    expect(queued).toEqual([]);
    expect((await jobs.remove('main', 'digest')).name).toBe('digest');
    expect(await jobs.list('main')).toEqual([]);
    expect(await jobs.history('main', { limit: 10 })).toEqual([]);
  });
  // Workers claim the occurrences of their groups at once. Under SERIALIZABLE, claims of different
  // jobs read and wrote the same small tables and re-ran each other; on the job's row lock only a
  // claim of the same job waits, and it then finds the job moved on (STALE), never re-run.
  it.runIf(kind === 'postgres')('two stores claiming 30 jobs at once never re-run a claim; each occurrence is claimed once', async () => {
    const first = await openTestStoreOn(kind);
    await first.store.ensureGroup('main');
    const second = await first.reopen();
    const stores = [new JobStore(first.store), new JobStore(second.store)];
    for (let i = 0; i < 30; i++) await stores[0]!.add(newJob(`job${i}`, { firstRunAt: NOW }), NOW);
    let rollbacks = 0;
    for (const { dataSource } of [first, second]) countRollbacks(dataSource, () => rollbacks++);
    const due = await stores[0]!.due(['main'], NOW, 100);
    expect(due.length).toBe(30);
    // Different jobs at once: every claim commits on its first attempt.
    const halves = [due.slice(0, 15), due.slice(15)];
    const distinct = await Promise.all(halves.flatMap((jobs, n) => jobs.map((job) => stores[n]!.claim(job, { dueAt: NOW, trigger: 'schedule' }, NOW + 10 * MINUTE, NOW))));
    expect(distinct.map((claim) => claim.outcome)).toEqual(Array(30).fill('run'));
    expect(rollbacks).toBe(0);
    // The same jobs from both stores at once: one claim wins, the other is refused as STALE (its only ROLLBACK).
    const next = await stores[0]!.due(['main'], NOW + 10 * MINUTE, 100);
    const settled = await Promise.allSettled(next.flatMap((job) => stores.map((jobs) => jobs.claim(job, { dueAt: NOW + 10 * MINUTE, trigger: 'schedule' }, NOW + 20 * MINUTE, NOW + 10 * MINUTE))));
    expect(settled.filter((result) => result.status === 'fulfilled').map((result) => (result as PromiseFulfilledResult<{ outcome: string }>).value.outcome)).toEqual(Array(30).fill('skipped'));
    expect(settled.filter((result) => result.status === 'rejected').map((result) => ((result as PromiseRejectedResult).reason as XdogError).code)).toEqual(Array(30).fill('STALE'));
    expect(rollbacks).toBe(30);
    const history = await stores[1]!.history('main', { limit: 100 });
    expect(history.length).toBe(60);
  });
});
