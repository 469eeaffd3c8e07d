/**
 * The run log through a real gateway and the CLI, on both stores: a client's
 * prompt and a scheduled job each leave one row naming their source, and
 * `xdog claw runs` lists, filters and pages them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import type { RunRecord } from '../../plugins/claw-runs/index.js';
import { collect, connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { runCli, runCliAsync } from '../support/cli.js';
import { clawSandboxOn, describeStores, type StoreKind, type TestDatabase } from '../support/stores.js';

async function sandboxWithTwoGroups(kind: StoreKind): Promise<ClawSandbox & { database?: TestDatabase }> {
  const sandbox = await clawSandboxOn(kind);
  const otherWorkspace = path.join(sandbox.root, 'other-workspace');
  fs.mkdirSync(otherWorkspace);
  fs.appendFileSync(sandbox.configFile, `    other:\n      workspace: ${otherWorkspace}\n      model: faux/demo\n  default_group: main\n`);
  return sandbox;
}

describeStores('claw runs', (kind) => {
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    await database?.drop();
    client = gateway = database = undefined;
  });

  it('records a prompt and a scheduled run; xdog claw runs lists, filters and pages them', async () => {
    const sandbox = await sandboxWithTwoGroups(kind);
    database = sandbox.database;
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    expect(client.hello.capabilities).toContain('runs:1');
    const ends = collect(client, 'run.end');
    await client.call('subscribe', { group: 'main' });
    await client.call('subscribe', { group: 'other' });

    const receipt = (await client.call('prompt', { group: 'main', text: 'hello', idempotencyKey: 'key-1' })) as { sessionId: string; inputId: string };
    const job = (await client.callService('schedule.add', { group: 'other', name: 'soon', at: Date.now() + 1_000, prompt: 'scheduled hello' })) as { id: string };
    await until(() => ends.length === 2, 'both runs to end');
    const cli = (args: string[]) => runCli(['claw', 'runs', ...args], { env: sandbox.env });
    // The row is written right after run.end goes out.
    await until(async () => ((await client!.callService('runs.list', {})) as { runs: RunRecord[] }).runs.length === 2, 'both runs in the run log');

    const [scheduled, prompted] = JSON.parse(cli(['--json']).stdout) as RunRecord[];
    expect(prompted).toMatchObject({ group: 'main', sessionId: receipt.sessionId, inputId: receipt.inputId, source: 'prompt', sourceId: 'key-1', status: 'completed', owner: expect.stringContaining(':'), error: null });
    expect(scheduled).toMatchObject({ group: 'other', source: 'schedule', sourceId: job.id, status: 'completed' });
    for (const run of [scheduled!, prompted!]) expect(run.endedAt).toBeGreaterThanOrEqual(run.startedAt);
    expect(scheduled!.id).toBeGreaterThan(prompted!.id);

    const main = JSON.parse(cli(['--group', 'main', '--json']).stdout) as RunRecord[];
    expect(main.map((run) => run.id)).toEqual([prompted!.id]);
    const page = cli(['--limit', '1']);
    expect(page.status).toBe(0);
    expect(page.stdout).toMatch(/RUN\s+GROUP\s+STARTED/);
    expect(page.stdout).toContain(`schedule ${job.id}`);
    expect(page.stdout).toContain(`more: xdog claw runs --before ${scheduled!.id}`);
    expect(((await client.callService('runs.list', { beforeId: scheduled!.id })) as { runs: RunRecord[] }).runs.map((run) => run.id)).toEqual([prompted!.id]);

    const unknown = cli(['--group', 'nosuch']);
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('no group named "nosuch"');
  }, 90_000);

  it('a graceful `gateway stop` ends the running prompt and scheduled run as interrupted: in run.end, the run log and the schedule history, and `claw send` says so', async () => {
    const sandbox = await sandboxWithTwoGroups(kind);
    database = sandbox.database;
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const events = collect(client, 'event');
    await client.call('subscribe', { group: 'main' });
    await client.call('subscribe', { group: 'other' });
    const send = runCliAsync(['claw', 'send', '--group', 'main', 'slow 60'], { env: sandbox.env });
    const job = (await client.callService('schedule.add', { group: 'other', name: 'long', at: Date.now() + 500, prompt: 'slow 60' })) as { id: string };
    await until(() => ['main', 'other'].every((group) => events.some((event) => event.group === group && event.event.type === 'tool_start')), 'both slow tools to start', 30_000);
    await client.close();
    client = undefined;

    const stopped = await runCliAsync(['claw', 'gateway', 'stop'], { env: sandbox.env });
    expect(stopped.status, stopped.stderr).toBe(0);
    const sent = await send;
    expect(sent.status).toBe(1);
    expect(sent.stderr).toContain('xdog: the gateway stopped; the run was interrupted [UNAVAILABLE]');
    expect(sent.stderr).not.toMatch(/connection .*closed/);

    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const { runs } = (await client.callService('runs.list', {})) as { runs: RunRecord[] };
    expect(runs.map((run) => [run.group, run.source, run.status, run.error])).toEqual(
      expect.arrayContaining([
        ['main', 'prompt', 'interrupted', 'the gateway stopped; the run was interrupted'],
        ['other', 'schedule', 'interrupted', 'the gateway stopped; the run was interrupted'],
      ]),
    );
    expect(runs).toHaveLength(2);
    const history = (await client.callService('schedule.history', { group: 'other' })) as Array<{ jobId: string; status: string }>;
    expect(history.filter((run) => run.jobId === job.id).map((run) => run.status)).toEqual(['interrupted']);
    const listed = runCli(['claw', 'runs'], { env: sandbox.env });
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n').filter((line) => line.includes('the gateway stopped; the run was interrupted'))).toHaveLength(2);
  }, 120_000);
});

