/**
 * The scale-out proof (issue 18, "Must show"): 3 worker processes on one
 * PostgreSQL database, 50 groups, 500 scheduled one-shot jobs all due at the
 * same moment (added through clients of different workers) plus 60 prompts
 * from clients of different workers. Checked from the store's own records:
 * every job ran exactly once (one completed schedule run each, one run-log
 * row each, one model request each), every prompt ran exactly once, no two
 * runs of one group overlap (run-log start/end times), every client got the
 * run.end and the event stream of each of its prompts and one run.end per
 * run of the groups it follows, and every worker ran groups.
 *
 * PostgreSQL only: it is the scale-out feature. Outside CI without a server
 * (XDOG_TEST_PG_URL) it is skipped, saying so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorCodes, XdogError } from '../../core/index.js';
import type { WorkersReport } from '../../plugins/claw-gateway/index.js';
import type { JobRun } from '../../plugins/claw-scheduler/index.js';
import type { RunRecord } from '../../plugins/claw-runs/index.js';
import { collect, startWorker, until, type ClawWorker as Worker } from '../support/claw.js';
import { clawSandboxOn, storeKinds, type TestDatabase } from '../support/stores.js';
import { tempDir } from '../support/temp.js';

const WORKERS = ['w1', 'w2', 'w3'] as const;
const GROUPS = Array.from({ length: 50 }, (_, index) => `g${String(index).padStart(2, '0')}`);
const JOBS_PER_GROUP = 10;
const PROMPTS = 60;
/** Seconds a lease lasts: short, so the pool settles fast. */
const LEASE_SECONDS = 5;
/** How far ahead the jobs are due: time to add all 500 through the workers first. */
const DUE_IN_MS = 45_000;

/** 50 groups (each its own workspace) on the faux model, and the short lease; the sandbox's "main" is replaced. */
function scaleOutConfig(root: string): string {
  const groups = GROUPS.map((group) => {
    const workspace = path.join(root, `ws-${group}`);
    fs.mkdirSync(workspace, { recursive: true });
    return `    ${group}:\n      workspace: ${workspace}\n      model: faux/demo\n`;
  });
  return `claw:\n  store:\n    type: postgres\n    url_env: XDOG_CLAW_PG_URL\n  groups:\n${groups.join('')}  lease_seconds: ${LEASE_SECONDS}\n`;
}

/** Calls a method, again while the group is moving between workers (UNAVAILABLE); safe for keyed or read calls only. */
async function callRetrying(call: () => Promise<unknown>, what: string): Promise<unknown> {
  const end = Date.now() + 30_000;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      // Not when the owner took the call but its answer is lost: that one may have run.
      const retryable = XdogError.is(error, ErrorCodes.UNAVAILABLE) && !/outcome is unknown/.test(error.message);
      if (!retryable || Date.now() > end) throw new Error(`${what}: ${(error as Error).message}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Runs `work` over `items`, `width` at a time. */
async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/** The last user text of a faux request. */
function lastUserText(request: { messages: Array<{ role: string; content: unknown }> }): string | undefined {
  const last = request.messages.at(-1);
  if (last?.role !== 'user') return undefined;
  return typeof last.content === 'string' ? last.content : (last.content as Array<{ type: string; text?: string }>).filter((part) => part.type === 'text').map((part) => part.text).join(' ');
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

const hasPg = storeKinds().includes('postgres');
if (!hasPg) console.warn('claw scale-out proof skipped: it needs PostgreSQL (set XDOG_TEST_PG_URL; see test/support/pg-server.sh)');

describe.skipIf(!hasPg)('claw scale-out on PostgreSQL: 3 workers, 50 groups, 500 jobs due at once, 60 prompts', () => {
  let database: TestDatabase | undefined;
  const workers: Worker[] = [];
  /** Stops the workers and drops the database of this (or a previous) attempt. */
  async function tearDown(): Promise<void> {
    for (const worker of workers) await worker.client.close().catch(() => undefined);
    await Promise.all(workers.map((worker) => worker.process.stop()));
    workers.length = 0;
    await database?.drop();
    database = undefined;
  }
  afterAll(tearDown);

  it('runs every job and prompt exactly once, never two runs of one group at once, and every event reaches its client', { timeout: 300_000 }, async () => {
    const sandbox = await clawSandboxOn('postgres');
    database = sandbox.database;
    fs.writeFileSync(sandbox.configFile, scaleOutConfig(tempDir('xdog-scale-out-')));
    for (const name of WORKERS) workers.push(await startWorker(sandbox, name, 60_000));

    // Every group is held and each worker has its share.
    let pool: WorkersReport | undefined;
    const shares = (report: WorkersReport) => WORKERS.map((name) => report.workers.find((worker) => worker.name === name && worker.alive)?.groups.length ?? 0);
    await until(
      async () => {
        pool = (await workers[0]!.client.call('workers.list', {})) as WorkersReport;
        const counts = shares(pool);
        return pool.unowned.length === 0 && counts.reduce((sum, count) => sum + count, 0) === GROUPS.length && Math.max(...counts) - Math.min(...counts) <= 1;
      },
      'the 50 groups to settle over 3 workers',
      120_000,
    ).catch((error: unknown) => {
      // Say how far it got and what the workers did meanwhile.
      const said = workers.flatMap((worker) => worker.process.log().split('\n').filter((line) => /lost the lease|giving group|could not|failed|did not/.test(line)).map((line) => `${worker.name}: ${line}`));
      throw new Error(`${(error as Error).message}: shares ${pool ? shares(pool).join('/') : '?'}, unowned ${pool?.unowned.length ?? '?'}\n${said.slice(-40).join('\n')}`);
    });
    for (const count of shares(pool!)) expect(count).toBeGreaterThan(0);

    // Client i follows the groups g with g % 3 == i (owned by any worker) and prompts only those.
    const followed = (index: number) => GROUPS.filter((_, groupIndex) => groupIndex % WORKERS.length === index);
    const seen = workers.map((worker) => ({ events: collect(worker.client, 'event'), ends: collect(worker.client, 'run.end') }));
    for (const [index, worker] of workers.entries()) for (const group of followed(index)) await callRetrying(() => worker.client.call('subscribe', { group }), `subscribe ${group}`);

    // 500 one-shots due at one moment, each added through a client of a different worker than its neighbour.
    const dueAt = Date.now() + DUE_IN_MS;
    const jobs = GROUPS.flatMap((group, groupIndex) => Array.from({ length: JOBS_PER_GROUP }, (_, job) => ({ group, name: `job${job}`, prompt: `job ${group} ${job}`, via: workers[(groupIndex + job) % WORKERS.length]! })));
    const jobIds = new Map<string, string>();
    await inParallel(jobs, 24, async (job) => {
      const added = (await callRetrying(() => job.via.client.callService('schedule.add', { group: job.group, name: job.name, at: dueAt, prompt: job.prompt }), `add ${job.group}/${job.name}`)) as { id: string };
      jobIds.set(added.id, job.prompt);
    });
    expect(jobIds.size).toBe(GROUPS.length * JOBS_PER_GROUP);
    expect(Date.now(), 'adding the jobs took longer than DUE_IN_MS: raise it').toBeLessThan(dueAt);

    // 60 prompts to random followed groups, sent as the jobs fall due, through all three workers.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt - Date.now())));
    const prompts = Array.from({ length: PROMPTS }, (_, index) => {
      const client = index % WORKERS.length;
      const groups = followed(client);
      return { client, group: groups[Math.floor(Math.random() * groups.length)]!, text: `prompt ${index}`, key: `scale-out-${index}` };
    });
    const receipts = new Map<string, { inputId: string; sessionId: string; client: number; group: string }>();
    await inParallel(prompts, 6, async (prompt) => {
      const receipt = (await callRetrying(() => workers[prompt.client]!.client.call('prompt', { group: prompt.group, text: prompt.text, idempotencyKey: prompt.key }), `prompt ${prompt.key}`)) as { status: string; inputId: string; sessionId: string };
      expect(receipt.status).not.toBe('duplicate');
      receipts.set(prompt.key, { inputId: receipt.inputId, sessionId: receipt.sessionId, client: prompt.client, group: prompt.group });
    });

    // Everything ran: the run log has a row per job and prompt (read through any worker).
    const reader = workers[1]!.client;
    const runLog = async (): Promise<RunRecord[]> => {
      const rows: RunRecord[] = [];
      for (let beforeId: number | undefined; ; ) {
        const { runs } = (await reader.callService('runs.list', { limit: 500, ...(beforeId ? { beforeId } : {}) })) as { runs: RunRecord[] };
        rows.push(...runs);
        if (runs.length < 500) return rows;
        beforeId = runs.at(-1)!.id;
      }
    };
    let runs: RunRecord[] = [];
    await until(
      async () => (runs = await runLog()).length >= jobs.length + PROMPTS,
      `${jobs.length + PROMPTS} runs in the run log`,
      150_000,
    ).catch((error: unknown) => {
      // Say what the workers said about it.
      const said = workers.flatMap((worker) => worker.process.log().split('\n').filter((line) => /not recorded|busy|fail|error|interrupt|lost the lease|giving group|left running/i.test(line)).map((line) => `${worker.name}: ${line}`));
      throw new Error(`${(error as Error).message} (have ${runs.length}: ${countBy(runs, (run) => run.source).size ? JSON.stringify(Object.fromEntries(countBy(runs, (run) => run.source))) : ''})\n${said.slice(0, 40).join('\n')}`);
    });

    // Every run completed (a failed or cut run is named here with its error).
    expect(runs.filter((run) => run.status !== 'completed')).toEqual([]);

    // Every job exactly once: one completed schedule run, one run-log row, one model request.
    const scheduleRuns: JobRun[] = [];
    for (const group of GROUPS) scheduleRuns.push(...((await callRetrying(() => reader.callService('schedule.history', { group, limit: 200 }), `history ${group}`)) as JobRun[]));
    expect(scheduleRuns).toHaveLength(jobs.length);
    expect(new Set(scheduleRuns.map((run) => run.jobId)).size).toBe(jobs.length);
    expect(scheduleRuns.filter((run) => run.status !== 'completed')).toEqual([]);
    const scheduled = runs.filter((run) => run.source === 'schedule');
    expect(scheduled).toHaveLength(jobs.length);
    expect([...countBy(scheduled, (run) => run.sourceId).entries()].filter(([id, count]) => count !== 1 || !jobIds.has(id))).toEqual([]);
    const requests = countBy(sandbox.requests().map(lastUserText).filter((text): text is string => text !== undefined), (text) => text);
    for (const prompt of jobIds.values()) expect(requests.get(prompt), prompt).toBe(1);

    // Every prompt exactly once.
    const prompted = runs.filter((run) => run.source === 'prompt');
    expect(prompted).toHaveLength(PROMPTS);
    expect([...countBy(prompted, (run) => run.sourceId).entries()].filter(([key, count]) => count !== 1 || !receipts.has(key))).toEqual([]);
    for (const prompt of prompts) expect(requests.get(prompt.text), prompt.text).toBe(1);

    // Never two runs of one group at once.
    const overlaps: string[] = [];
    for (const group of GROUPS) {
      const ordered = runs.filter((run) => run.group === group).sort((a, b) => a.startedAt - b.startedAt || a.id - b.id);
      for (let index = 1; index < ordered.length; index++) {
        const [before, after] = [ordered[index - 1]!, ordered[index]!];
        if (after.startedAt < before.endedAt) overlaps.push(`${group}: run ${after.id} (${after.source}, ${after.owner}) started at ${after.startedAt}, before run ${before.id} (${before.source}, ${before.owner}) ended at ${before.endedAt}`);
      }
    }
    const moves = workers.flatMap((worker) => worker.process.log().split('\n').filter((line) => /lost the lease|giving group|left running|could not renew|round failed/.test(line)).map((line) => `${worker.name} (pid ${worker.process.child.pid}): ${line}`));
    expect(overlaps, moves.slice(0, 30).join('\n')).toEqual([]);

    // Every worker ran groups (a row's owner is host:pid).
    const owners = new Set(runs.map((run) => Number(run.owner.slice(run.owner.lastIndexOf(':') + 1))));
    expect([...owners].sort()).toEqual(workers.map((worker) => worker.process.child.pid!).sort());

    // Every event reached its client: a run.end per run of each followed group, and each prompt's stream.
    const expectedEnds = (index: number) => runs.filter((run) => followed(index).includes(run.group)).length;
    // On a timeout the comparison below names what is missing.
    await until(() => workers.every((_, index) => seen[index]!.ends.length >= expectedEnds(index)), 'every run.end at the clients following its group', 30_000).catch(() => undefined);
    const byPid = new Map(workers.map((worker) => [worker.process.child.pid!, worker.name]));
    const ranBy = (run: RunRecord) => byPid.get(Number(run.owner.slice(run.owner.lastIndexOf(':') + 1))) ?? run.owner;
    const missing: string[] = [];
    for (const [index, worker] of workers.entries()) {
      for (const group of followed(index)) {
        const rows = runs.filter((run) => run.group === group);
        const ends = seen[index]!.ends.filter((end) => end.group === group);
        const lost = rows.filter((run) => !ends.some((end) => end.sessionId === run.sessionId && end.inputId === run.inputId));
        if (ends.length !== rows.length || lost.length) {
          missing.push(`client of ${worker.name}, group ${group} run by ${[...new Set(rows.map(ranBy))].join('/')}: ${ends.length} run.end for ${rows.length} runs; none for ${lost.map((run) => `${run.inputId} (${run.source}, ended ${new Date(run.endedAt).toISOString()})`).join(', ')}`);
        }
      }
    }
    expect(missing).toEqual([]);
    for (const [key, receipt] of receipts) {
      const { events, ends } = seen[receipt.client]!;
      const mine = (item: Record<string, any>) => item.group === receipt.group && item.sessionId === receipt.sessionId && item.inputId === receipt.inputId;
      expect(ends.filter(mine).map((end) => end.status), key).toEqual(['completed']);
      const types = events.filter(mine).map((event) => event.event.type);
      expect(types[0], key).toBe('agent_start');
      expect(types.at(-1), key).toBe('agent_end');
      expect(types.filter((type) => type === 'agent_end'), key).toHaveLength(1);
    }
  });
});
