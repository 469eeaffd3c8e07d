/**
 * The group job queue, one body for both implementations (pg-boss on a
 * fresh PostgreSQL database, the in-process queue for SQLite): keyed dedupe,
 * one job at a time per group in send order, groups in parallel, and a
 * handover from one consumer to another with nothing run twice or lost.
 */
import type { DataSource } from 'typeorm';
import { afterEach, expect, it } from 'vitest';
import { openGroupJobQueue, type GroupJob, type GroupJobQueue } from '../../../plugins/claw-gateway/index.js';
import { until } from '../../support/claw.js';
import { createTestDatabase, describeStores, type StoreKind, type TestDatabase } from '../../support/stores.js';

interface Gate {
  promise: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const job = (key: string) => ({ key, type: 'test', data: { key } });

describeStores('group job queue', (kind: StoreKind) => {
  const opened: GroupJobQueue[] = [];
  let database: TestDatabase | undefined;
  const logs: string[] = [];

  afterEach(async () => {
    for (const queue of opened.splice(0)) await queue.stop().catch(() => undefined);
    await database?.drop();
    database = undefined;
  });

  /**
   * Two consumers of one queue: two pg-boss instances on one database (as two
   * workers would be), or the one in-process queue (a single gateway).
   */
  async function consumers(): Promise<[GroupJobQueue, GroupJobQueue]> {
    if (kind === 'sqlite') {
      const queue = await openGroupJobQueue({ options: { type: 'better-sqlite3' } } as DataSource, (line) => logs.push(line));
      opened.push(queue);
      return [queue, queue];
    }
    database = await createTestDatabase();
    const source = { options: { type: 'postgres', url: database.url } } as unknown as DataSource;
    const first = await openGroupJobQueue(source, (line) => logs.push(line));
    opened.push(first);
    const second = await openGroupJobQueue(source, (line) => logs.push(line));
    opened.push(second);
    return [first, second];
  }

  it('picks the implementation of its store', async () => {
    const [queue] = await consumers();
    expect(queue.kind).toBe(kind === 'postgres' ? 'pg-boss' : 'in-process');
    expect(queue.durable).toBe(kind === 'postgres');
  });

  it('keeps one job per key: a second send, before or after it ran, is a duplicate and it runs once', async () => {
    const [queue] = await consumers();
    expect(await queue.send('g1', job('a'))).toBe('queued');
    expect(await queue.send('g1', job('a'))).toBe('duplicate');
    const ran: string[] = [];
    await queue.work('g1', async (got) => void ran.push(got.key));
    await until(() => ran.length === 1, 'the job to run');
    expect(await queue.send('g1', job('a'))).toBe('duplicate');
    expect(await queue.send('g1', job('b'))).toBe('queued');
    await until(() => ran.length === 2, 'the second job to run');
    expect(ran).toEqual(['a', 'b']);
    // The same key in another group is another job.
    expect(await queue.send('g2', job('a'))).toBe('queued');
  });

  it('runs a group one job at a time in send order, and different groups in parallel', async () => {
    const [queue] = await consumers();
    const active = new Map<string, number>();
    let most = 0;
    const ran: GroupJob[] = [];
    const g2ran = gate();
    const handler = async (got: GroupJob): Promise<void> => {
      const now = (active.get(got.group) ?? 0) + 1;
      active.set(got.group, now);
      most = Math.max(most, now);
      // g1's first job waits for g2's: a queue that ran the groups one after another would never get there.
      if (got.key === 'g1-0') await g2ran.promise;
      await new Promise((resolve) => setImmediate(resolve));
      ran.push(got);
      if (got.group === 'g2') g2ran.open();
      active.set(got.group, now - 1);
    };
    for (let i = 0; i < 5; i++) expect(await queue.send('g1', job(`g1-${i}`))).toBe('queued');
    await queue.work('g1', handler);
    await queue.work('g2', handler);
    await queue.send('g2', job('g2-0'));
    await until(() => ran.length === 6, 'all six jobs to run');
    expect(most).toBe(1);
    expect(ran.filter((got) => got.group === 'g1').map((got) => got.key)).toEqual(['g1-0', 'g1-1', 'g1-2', 'g1-3', 'g1-4']);
    expect(ran[0]!.key).toBe('g2-0');
    expect(ran[0]!.data).toEqual({ key: 'g2-0' });
  });

  it('hands a group over: the second consumer takes the waiting jobs after the first stopped, nothing runs twice or is lost', async () => {
    const [first, second] = await consumers();
    const ran: string[] = [];
    const hold = gate();
    let started = false;
    await first.work('g', async (got) => {
      started = true;
      if (got.key === 'j0') await hold.promise;
      ran.push(`first:${got.key}`);
    });
    for (let i = 0; i < 6; i++) await first.send('g', job(`j${i}`));
    await until(() => started, 'the first job to start');
    // unwork waits for the running job, then the rest wait for the next consumer.
    const stopping = first.unwork('g');
    hold.open();
    await stopping;
    await second.work('g', async (got) => void ran.push(`second:${got.key}`));
    await until(() => ran.length === 6, 'every job to run');
    expect(ran[0]).toBe('first:j0');
    expect(ran.map((entry) => entry.split(':')[1]).sort()).toEqual(['j0', 'j1', 'j2', 'j3', 'j4', 'j5']);
    expect(ran.slice(1).every((entry) => entry.startsWith('second:'))).toBe(true);
  });

  it('fails a job whose consumer went away mid-run when the group is taken over, and never runs it again', async () => {
    const [first, second] = await consumers();
    if (!first.durable) return; // an in-process queue dies with its process: nothing is left to take over
    const ran: string[] = [];
    let started = false;
    await first.work('g', async () => {
      started = true;
      await new Promise(() => undefined); // the worker "dies" mid-run
    });
    await first.send('g', job('stuck'));
    await until(() => started, 'the job to start');
    await first.stop();
    await first.send('g', job('next')).catch(() => undefined);
    await second.send('g', job('next'));
    await second.work('g', async (got) => void ran.push(got.key));
    await until(() => ran.length === 1, 'the next job to run');
    expect(ran).toEqual(['next']);
    expect(logs.some((line) => line.includes('left running by a previous owner failed'))).toBe(true);
    // A takeover re-send of the stuck key (replace) queues it again: the caller's own record decides whether it still runs.
    expect(await second.send('g', job('stuck'))).toBe('duplicate');
    expect(await second.send('g', job('stuck'), { replace: true })).toBe('queued');
  });

  it('lets two consumers start working and sending to many new groups at once: every queue is made, every job runs once', async () => {
    // pg-boss makes each new queue a partition of its job table; made concurrently from two pools they may deadlock.
    const [first, second] = await consumers();
    const groups = Array.from({ length: 24 }, (_, index) => `burst${index}`);
    const ran: string[] = [];
    await Promise.all(groups.map(async (group, index) => {
      const [owner, other] = index % 2 ? [first, second] : [second, first];
      await Promise.all([owner.work(group, async (job: GroupJob) => void ran.push(`${group}:${job.key}`)), other.send(group, job('only'))]);
    }));
    await until(() => ran.length >= groups.length, 'a job of every group to run', 20_000);
    expect(ran.sort()).toEqual(groups.map((group) => `${group}:only`).sort());
  }, 60_000);
});
