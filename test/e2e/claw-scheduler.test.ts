/**
 * The scheduler and the resets through a real gateway process, on a fake
 * clock the test moves (the testclock fixture plugin, installed with `xdog
 * plugins install`): scheduled turns as system inputs, overlap skips, errors
 * recorded and retried at the next occurrence, downtime handled per the
 * grace policy, interrupted runs never re-run, 100 jobs due at once, and
 * daily/idle resets that wait for an idle group and respect a resume.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import type { GroupStatus, TranscriptChunk } from '../../plugins/claw-gateway/protocol.js';
import type { Job, JobRun } from '../../plugins/claw-scheduler/index.js';
import type { SessionRecord } from '../../plugins/sessions/types.js';
import { connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { repoRoot, runCli } from '../support/cli.js';
import { clawSandboxOn, describeStores } from '../support/stores.js';

const TESTCLOCK_PLUGIN = path.join(repoRoot, 'test/fixtures/claw/testclock-plugin');

interface Running {
  gateway: GatewayProcess;
  client: GatewayConnection;
}

describeStores('claw scheduler and resets (fake clock, real gateway)', (kind) => {
  const open: Running[] = [];
  afterEach(async () => {
    for (const running of open.splice(0)) {
      await running.client.close().catch(() => undefined);
      await running.gateway.stop();
    }
  });

  async function sandbox(start: string, extraConfig = ''): Promise<ClawSandbox> {
    const box = await clawSandboxOn(kind, extraConfig);
    box.env.XDOG_TEST_CLOCK_START = start;
    const installed = runCli(['plugins', 'install', TESTCLOCK_PLUGIN], { env: box.env, cwd: box.root });
    expect(installed.status, installed.stderr).toBe(0);
    return box;
  }

  async function boot(box: ClawSandbox, start?: string): Promise<Running> {
    if (start) box.env.XDOG_TEST_CLOCK_START = start;
    const gateway = await startGateway(box);
    const client = await connect(box);
    const running = { gateway, client };
    open.push(running);
    return running;
  }

  async function shutdown(running: Running, how: 'stop' | 'kill9' = 'stop'): Promise<void> {
    open.splice(open.indexOf(running), 1);
    await running.client.close().catch(() => undefined);
    if (how === 'kill9') await running.gateway.kill9();
    else await running.gateway.stop();
  }

  const setClock = (client: GatewayConnection, at: string) => client.callService('testclock.set', { at });
  const history = async (client: GatewayConnection, name?: string, group?: string): Promise<JobRun[]> =>
    ((await client.callService('schedule.history', { group, ...(name ? { name } : {}) })) as JobRun[]).slice().reverse();
  const addJob = (client: GatewayConnection, params: Record<string, unknown>) => client.callService('schedule.add', params) as Promise<Job>;
  const groupStatus = async (client: GatewayConnection, group?: string) => (await client.call('group.status', { group })) as GroupStatus;
  const ended = (runs: JobRun[]) => runs.filter((run) => run.status !== 'queued' && run.status !== 'running');

  async function transcript(client: GatewayConnection, sessionId: string): Promise<string> {
    let text = '';
    let offset = 0;
    let untilEntryId: number | undefined;
    for (;;) {
      const chunk = (await client.call('transcript.read', { sessionId, offset, ...(untilEntryId === undefined ? {} : { untilEntryId }) })) as TranscriptChunk;
      text += Buffer.from(chunk.data, 'base64').toString('utf8');
      if (chunk.done) return text;
      offset = chunk.nextOffset;
      untilEntryId = chunk.untilEntryId;
    }
  }

  it('runs a cron job at its time in the active session as a labelled system input that skips the human input hook; the reply survives a restart', async () => {
    const box = await sandbox('2026-12-01T08:58:00Z');
    box.env.XDOG_TEST_TAG_HUMAN = '1';
    let running = await boot(box);
    const added = runCli(['claw', 'schedule', 'add', 'standup', '--cron', '0 9 * * *', '--tz', 'UTC', '--prompt', 'good morning'], { env: box.env, cwd: box.root });
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toContain('next: 2026-12-01T09:00:00Z');

    await running.client.call('prompt', { text: 'hello', idempotencyKey: 'h1' });
    await until(async () => !(await groupStatus(running.client)).busy, 'the human prompt to end');
    const sessionId = (await groupStatus(running.client)).activeSessionId!;

    await setClock(running.client, '2026-12-01T08:59:59Z');
    await setClock(running.client, '2026-12-01T09:00:01Z');
    await until(async () => ended(await history(running.client, 'standup')).length === 1, 'the scheduled run to end');
    const [run] = await history(running.client, 'standup');
    expect(run).toMatchObject({ status: 'completed', trigger: 'schedule', dueAt: Date.parse('2026-12-01T09:00:00Z'), sessionId, error: null });
    expect(run!.inputTokens).not.toBeNull();

    const users = box.requests().map((request) => request.messages.at(-1)!).filter((message) => message.role === 'user');
    expect(users.map((message) => message.content)).toEqual(['[human] hello', 'good morning']);

    const listed = runCli(['claw', 'schedule', 'list'], { env: box.env, cwd: box.root });
    expect(listed.stdout).toMatch(/standup\s+cron "0 9 \* \* \*" UTC\s+active\s+2026-12-02T09:00:00Z/);

    await shutdown(running);
    running = await boot(box, '2026-12-01T09:10:00Z');
    const lines = (await transcript(running.client, sessionId)).trim().split('\n').map((line) => JSON.parse(line));
    const scheduled = lines.find((line) => JSON.stringify(line).includes('good morning'));
    expect(JSON.stringify(scheduled)).toContain(JSON.stringify({ kind: 'system', origin: 'schedule', id: run!.jobId, name: 'standup' }).slice(1, -1));
    expect(JSON.stringify(lines.at(-1))).toContain('echo: good morning');
    const human = lines.find((line) => JSON.stringify(line).includes('[human] hello'));
    expect(JSON.stringify(human)).not.toContain('"origin"');
    const shown = runCli(['claw', 'schedule', 'history', 'standup'], { env: box.env, cwd: box.root });
    expect(shown.stdout).toMatch(/completed/);
  });

  it('skips an occurrence while the last run still goes, records a failing model call and runs it again next time, in an isolated session', async () => {
    const box = await sandbox('2026-12-01T10:00:00Z', `    ops:\n      workspace: ${os.tmpdir()}\n      model: faux/demo\n      enabled_tools: []\n`);
    const release = path.join(box.root, 'release');
    const running = await boot(box);
    const { client } = running;
    await addJob(client, { group: 'main', name: 'slow', everySeconds: 60, prompt: `run while [ ! -f ${release} ]; do sleep 0.05; done; echo released` });
    await addJob(client, { group: 'ops', name: 'broken', everySeconds: 60, prompt: 'fail the provider is down', target: 'isolated' });
    const opsActive = (await groupStatus(client, 'ops')).activeSessionId;

    await setClock(client, '2026-12-01T10:01:00Z');
    await until(async () => (await history(client, 'slow', 'main')).some((run) => run.status === 'running'), 'the first slow run to start');
    await until(async () => ended(await history(client, 'broken', 'ops')).length === 1, 'the first failing run to end');

    await setClock(client, '2026-12-01T10:02:00Z');
    await until(async () => (await history(client, 'slow', 'main')).length === 2, 'the second occurrence of the slow job');
    await until(async () => ended(await history(client, 'broken', 'ops')).length === 2, 'the second failing run to end');
    const slow = await history(client, 'slow', 'main');
    expect(slow.map((run) => [run.dueAt, run.status])).toEqual([
      [Date.parse('2026-12-01T10:01:00Z'), 'running'],
      [Date.parse('2026-12-01T10:02:00Z'), 'skipped'],
    ]);
    expect(slow[1]!.error).toContain(`run ${slow[0]!.id} of this job was still in progress`);

    fs.writeFileSync(release, '');
    await until(async () => (await history(client, 'slow', 'main'))[0]!.status === 'completed', 'the slow run to end');

    const broken = await history(client, 'broken', 'ops');
    expect(broken.map((run) => [run.status, run.error])).toEqual([
      ['error', 'the provider is down'],
      ['error', 'the provider is down'],
    ]);
    // Each run had a fresh session that never became active.
    expect(new Set(broken.map((run) => run.sessionId)).size).toBe(2);
    expect((await groupStatus(client, 'ops')).activeSessionId).toBe(opsActive);
    const job = (await client.callService('schedule.show', { group: 'ops', name: 'broken' })) as { job: Job };
    expect(job.job.nextRunAt).toBe(Date.parse('2026-12-01T10:03:00Z'));
  });

  it('after downtime runs a missed occurrence once within its grace, records it missed past the grace, and never re-runs an interrupted run', async () => {
    const box = await sandbox('2026-12-01T12:00:00Z');
    const hold = path.join(box.root, 'hold');
    let running = await boot(box);
    await addJob(running.client, { name: 'lenient', everySeconds: 600, graceSeconds: 900, prompt: 'lenient tick' });
    await addJob(running.client, { name: 'strict', everySeconds: 600, graceSeconds: 60, prompt: 'strict tick', paused: false });
    await addJob(running.client, { name: 'hanging', at: Date.parse('2026-12-01T12:05:00Z'), prompt: `run while [ ! -f ${hold} ]; do sleep 0.05; done` });
    await setClock(running.client, '2026-12-01T12:05:00Z');
    await until(async () => (await history(running.client, 'hanging')).some((run) => run.status === 'running'), 'the hanging run to start');
    const before = box.requests().length;
    await shutdown(running, 'kill9');
    // The killed gateway's tool process would wait forever; let it end (its result has nowhere to go).
    fs.writeFileSync(hold, '');

    // Down from 12:05 until 12:35: lenient/strict were due at 12:10, 12:20 and 12:30.
    running = await boot(box, '2026-12-01T12:35:00Z');
    const { client } = running;
    await until(async () => ended(await history(client, 'lenient')).length === 2 && ended(await history(client, 'strict')).length === 2, 'the catch-up decisions');

    const lenient = await history(client, 'lenient');
    expect(lenient.map((run) => [new Date(run.dueAt).toISOString(), run.trigger, run.status])).toEqual([
      ['2026-12-01T12:10:00.000Z', 'schedule', 'missed'],
      ['2026-12-01T12:30:00.000Z', 'catch-up', 'completed'],
    ]);
    const strict = await history(client, 'strict');
    expect(strict.map((run) => [new Date(run.dueAt).toISOString(), run.status])).toEqual([
      ['2026-12-01T12:10:00.000Z', 'missed'],
      ['2026-12-01T12:30:00.000Z', 'missed'],
    ]);
    expect(strict[1]!.error).toContain("past the job's grace of 60 s");

    const hanging = await history(client, 'hanging');
    expect(hanging).toHaveLength(1);
    expect(hanging[0]).toMatchObject({ status: 'interrupted' });
    expect(hanging[0]!.error).toContain('it is not run again');
    // The only model call after the restart is the lenient catch-up: the interrupted run was not sent again.
    const after = box.requests().slice(before).map((request) => JSON.stringify(request.messages.at(-1)!.content));
    expect(after.filter((text) => text.includes('while [ ! -f'))).toEqual([]);
    expect(after.some((text) => text.includes('lenient tick'))).toBe(true);
    const next = (await client.callService('schedule.list', {})) as Job[];
    expect(next.find((job) => job.name === 'lenient')!.nextRunAt).toBe(Date.parse('2026-12-01T12:40:00Z'));
    expect(next.find((job) => job.name === 'hanging')!.nextRunAt).toBeNull();
  });

  it('runs 100 jobs due in the same minute exactly once each, one at a time in the group, and their run rows say so', async () => {
    const box = await sandbox('2026-12-01T13:00:00Z');
    const { client } = await boot(box);
    for (let index = 0; index < 100; index++) await addJob(client, { name: `job-${index}`, cron: '0 14 * * *', timezone: 'UTC', prompt: `task ${index}` });
    await setClock(client, '2026-12-01T14:00:20Z');
    await until(async () => ended((await client.callService('schedule.history', { limit: 200 })) as JobRun[]).length === 100, 'all 100 runs to end', 120_000);
    await setClock(client, '2026-12-01T14:00:50Z');

    const runs = ((await client.callService('schedule.history', { limit: 200 })) as JobRun[]).slice().reverse();
    expect(runs).toHaveLength(100);
    expect(new Set(runs.map((run) => run.jobId)).size).toBe(100);
    expect(runs.every((run) => run.status === 'completed' && run.trigger === 'schedule' && run.dueAt === Date.parse('2026-12-01T14:00:00Z'))).toBe(true);
    const sessionId = runs[0]!.sessionId;
    expect(runs.every((run) => run.sessionId === sessionId)).toBe(true);

    // One at a time: each request carried the whole, strictly alternating conversation of the runs before it.
    const requests = box.requests();
    expect(requests).toHaveLength(100);
    requests.forEach((request, index) => {
      expect(request.messages).toHaveLength(2 * index + 1);
      expect(request.messages.map((message) => message.role)).toEqual(request.messages.map((_, at) => (at % 2 === 0 ? 'user' : 'assistant')));
    });
    // In the order the rows were claimed.
    const jobs = new Map(((await client.callService('schedule.list', {})) as Job[]).map((job) => [job.id, job.prompt]));
    expect(requests.map((request) => request.messages.at(-1)!.content)).toEqual(runs.map((run) => jobs.get(run.jobId)));
  }, 180_000);

  it('resets daily at the local boundary (archived with its name), waits for a running turn, and does not reset a session resumed after the boundary', async () => {
    const box = await sandbox('2026-12-01T02:30:00Z', '      timezone: Europe/Berlin\n      reset: { daily_at: "04:00" }\n');
    const release = path.join(box.root, 'release');
    const { client } = await boot(box);
    await client.call('prompt', { text: 'first day', idempotencyKey: 'd1' });
    await until(async () => !(await groupStatus(client)).busy, 'the first prompt to end');
    const first = (await groupStatus(client)).activeSessionId!;
    await client.call('session.name', { name: 'day one', expectedSessionId: first });
    const status = (await client.callService('reset.status', {})) as { nextResetAt: number; nextReason: string };
    // 04:00 in Berlin (UTC+1 in December).
    expect(status).toMatchObject({ nextResetAt: Date.parse('2026-12-01T03:00:00Z'), nextReason: 'daily' });

    // A turn is running when the boundary passes: no reset until it ended.
    await client.call('prompt', { text: `run while [ ! -f ${release} ]; do sleep 0.05; done`, idempotencyKey: 'd2' });
    await setClock(client, '2026-12-01T03:00:30Z');
    await until(async () => ((await client.callService('reset.status', {})) as { checkedAt: number }).checkedAt >= Date.parse('2026-12-01T03:00:30Z'), 'a reset check after the boundary');
    expect((await groupStatus(client)).activeSessionId).toBe(first);
    fs.writeFileSync(release, '');
    await until(async () => (await groupStatus(client)).activeSessionId !== first, 'the reset after the turn ended');

    const second = (await groupStatus(client)).activeSessionId!;
    const sessions = (await client.call('session.list', { includeArchived: true })) as SessionRecord[];
    expect(sessions.find((session) => session.id === first)).toMatchObject({ archived: true, name: 'day one' });
    expect(sessions.find((session) => session.id === second)).toMatchObject({ archived: false });

    // Resumed just past the boundary: the next checks leave it alone until the next day's boundary.
    await setClock(client, '2026-12-01T03:01:00Z');
    await client.call('session.resume', { sessionId: first, expectedSessionId: second });
    await setClock(client, '2026-12-01T03:05:00Z');
    await until(async () => ((await client.callService('reset.status', {})) as { checkedAt: number }).checkedAt >= Date.parse('2026-12-01T03:05:00Z'), 'a reset check after the resume');
    expect((await groupStatus(client)).activeSessionId).toBe(first);
    expect(((await client.callService('reset.status', {})) as { nextResetAt: number }).nextResetAt).toBe(Date.parse('2026-12-02T03:00:00Z'));
    await setClock(client, '2026-12-02T03:00:05Z');
    await until(async () => (await groupStatus(client)).activeSessionId !== first, 'the next day\'s reset');
  });

  it('resets after the configured idle minutes without a run, not before, and not while a resetSuppressed tap vetoes', async () => {
    const box = await sandbox('2026-12-01T06:00:00Z', '      reset: { idle_minutes: 30 }\n');
    const veto = path.join(box.root, 'veto');
    box.env.XDOG_TEST_RESET_VETO = veto;
    const running = await boot(box);
    const { client } = running;
    await client.call('prompt', { text: 'morning', idempotencyKey: 'i1' });
    await until(async () => !(await groupStatus(client)).busy, 'the prompt to end');
    const first = (await groupStatus(client)).activeSessionId!;
    await setClock(client, '2026-12-01T06:29:00Z');
    await until(async () => ((await client.callService('reset.status', {})) as { checkedAt: number }).checkedAt >= Date.parse('2026-12-01T06:29:00Z'), 'a check before the idle limit');
    expect((await groupStatus(client)).activeSessionId).toBe(first);
    fs.writeFileSync(veto, 'a plan is active');
    await setClock(client, '2026-12-01T06:30:01Z');
    await until(async () => ((await client.callService('reset.status', {})) as { checkedAt: number }).checkedAt >= Date.parse('2026-12-01T06:30:01Z'), 'a check past the idle limit');
    expect((await groupStatus(client)).activeSessionId).toBe(first);
    expect(running.gateway.log()).toContain(`the idle reset of session ${first} is held back: a plan is active`);
    fs.unlinkSync(veto);
    await setClock(client, '2026-12-01T06:31:00Z');
    await until(async () => (await groupStatus(client)).activeSessionId !== first, 'the idle reset');
    const sessions = (await client.call('session.list', { includeArchived: true })) as SessionRecord[];
    expect(sessions.find((session) => session.id === first)!.archived).toBe(true);
  });
});
