/**
 * Scheduled runs and channel turns as jobs of the group job queue, through a
 * real gateway process on each store (pg-boss on PostgreSQL, the in-process
 * queue on SQLite): a channel turn waits behind the group's scheduled run
 * (one job of a group at a time), and after kill -9 the run that had started
 * is recorded interrupted, never re-run, while a run claimed behind it runs
 * once on the next owner when its job outlived the process (pg-boss) and is
 * recorded interrupted when it could not (in-process).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import type { Job, JobRun } from '../../plugins/claw-scheduler/index.js';
import { connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { clawSandboxOn, describeStores, type TestDatabase } from '../support/stores.js';
import { WEBHOOK_SECRET, deliver, startReceiver, webhookChannelConfig, type Receiver } from '../support/webhook.js';

interface Running {
  gateway: GatewayProcess;
  client: GatewayConnection;
}

/** A one-shot far in the future: these jobs only ever run through run_now. */
const LATER = Date.parse('2099-01-01T00:00:00Z');

describeStores('claw group jobs (scheduler and channels on the job queue)', (kind) => {
  const open: Running[] = [];
  let receiver: Receiver | undefined;
  const databases: TestDatabase[] = [];
  afterEach(async () => {
    for (const running of open.splice(0)) {
      await running.client.close().catch(() => undefined);
      await running.gateway.stop();
    }
    await receiver?.close();
    receiver = undefined;
    for (const database of databases.splice(0)) await database.drop();
  });

  async function sandbox(extraConfig = ''): Promise<ClawSandbox> {
    const box = await clawSandboxOn(kind, extraConfig);
    if (box.database) databases.push(box.database);
    return box;
  }

  async function boot(box: ClawSandbox): Promise<Running> {
    const gateway = await startGateway(box);
    const client = await connect(box);
    const running = { gateway, client };
    open.push(running);
    return running;
  }

  const history = async (client: GatewayConnection, name: string): Promise<JobRun[]> => ((await client.callService('schedule.history', { name })) as JobRun[]).slice().reverse();
  const addJob = (client: GatewayConnection, name: string, prompt: string) => client.callService('schedule.add', { name, at: LATER, prompt }) as Promise<Job>;
  const runNow = (client: GatewayConnection, name: string) => client.callService('schedule.run_now', { name }) as Promise<JobRun>;
  const holdPrompt = (hold: string) => `run while [ ! -f ${hold} ]; do sleep 0.05; done`;

  it('runs a channel turn only after the scheduled run its group is running has ended', { timeout: 120_000 }, async () => {
    receiver = await startReceiver();
    const box = await sandbox(webhookChannelConfig(receiver.url, ['alice']));
    box.env.XDOG_TEST_WEBHOOK_SECRET = WEBHOOK_SECRET;
    // In the workspace: a group a channel feeds runs bash in the sandbox, which does not see the host's /tmp.
    const hold = path.join(box.workspace, 'hold');
    const { client } = await boot(box);
    await addJob(client, 'hold', holdPrompt(hold));
    await runNow(client, 'hold');
    await until(async () => (await history(client, 'hold'))[0]?.status === 'running', 'the scheduled run to start');

    const [channel] = (await client.callService('channels.status', { id: 'hook' })) as Array<{ transport: { url: string } }>;
    expect((await deliver(channel!.transport.url, { id: 'm1', sender: 'alice', text: 'hello while busy' })).status).toBe(202);
    // The turn is a job behind the running one: the model never sees the message while the run holds the group.
    await until(async () => ((await client.callService('channels.status', { id: 'hook' })) as Array<{ current: unknown }>)[0]!.current !== null, 'the message to be taken');
    const seen = () => box.requests().some((request) => JSON.stringify(request.messages.at(-1)).includes('hello while busy'));
    expect(seen()).toBe(false);

    fs.writeFileSync(hold, '');
    await until(() => receiver!.messages().some((reply) => reply.in_reply_to === 'm1'), 'the reply to m1');
    const [run] = await history(client, 'hold');
    expect(run).toMatchObject({ status: 'completed' });
    expect(seen()).toBe(true);
  });

  it('after kill -9 records the started run interrupted, never re-run, and the run claimed behind it runs once only if its job outlived the process', { timeout: 120_000 }, async () => {
    const box = await sandbox();
    const hold = path.join(box.root, 'hold');
    let running = await boot(box);
    await addJob(running.client, 'hold', holdPrompt(hold));
    await addJob(running.client, 'after', 'after tick');
    await runNow(running.client, 'hold');
    await until(async () => (await history(running.client, 'hold'))[0]?.status === 'running', 'the first run to start');
    await runNow(running.client, 'after');
    expect((await history(running.client, 'after'))[0]).toMatchObject({ status: 'queued' });

    open.splice(open.indexOf(running), 1);
    await running.client.close().catch(() => undefined);
    await running.gateway.kill9();
    const before = box.requests().length;
    // The killed gateway's tool process would wait forever; let it end (its result has nowhere to go).
    fs.writeFileSync(hold, '');

    running = await boot(box);
    const { client } = running;
    await until(async () => (await history(client, 'after'))[0]?.status !== 'queued' && (await history(client, 'after'))[0]?.status !== 'running', 'the claimed run to be settled');
    const [first] = await history(client, 'hold');
    expect(first).toMatchObject({ status: 'interrupted' });
    expect(first!.error).toContain('it is not run again');
    const after = await history(client, 'after');
    expect(after).toHaveLength(1);
    const sent = () => box.requests().filter((request) => JSON.stringify(request.messages.at(-1)).includes('after tick')).length;
    if (kind === 'postgres') {
      // Its job waited in pg-boss: the new owner runs it, once.
      expect(after[0]).toMatchObject({ status: 'completed' });
      expect(sent()).toBe(1);
    } else {
      // The in-process queue died with the gateway: the run never began, and is recorded so.
      expect(after[0]).toMatchObject({ status: 'interrupted', error: 'the gateway stopped before this run started' });
      expect(sent()).toBe(0);
    }
    // Nothing is stuck: the job runs again on demand.
    await runNow(client, 'after');
    await until(async () => (await history(client, 'after'))[1]?.status === 'completed', 'the next run');
    expect(sent()).toBe(kind === 'postgres' ? 2 : 1);
    // The interrupted run was not sent again.
    expect(box.requests().slice(before).filter((request) => JSON.stringify(request.messages.at(-1)).includes('while [ ! -f'))).toEqual([]);
  });
});
