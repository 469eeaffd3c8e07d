/**
 * A group's daily cost budget stops a schedule once spent, through real
 * gateways and the built CLI: a job is run five times in a row (`schedule
 * run-now`, the scheduler's own run path; a job fires at most once a minute on
 * its own), each run is one faux call of a known price, and after the budget is
 * reached the job's runs are skipped with BUDGET_EXCEEDED and no more calls
 * reach the model. On PostgreSQL two workers share the store (and so the count).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { collect, connect, startGateway, startWorker, until, type ClawSandbox, type ClawWorker, type GatewayProcess } from '../support/claw.js';
import { runCli } from '../support/cli.js';
import { clawSandboxOn, describeStores, type TestDatabase } from '../support/stores.js';
import { WEBHOOK_SECRET, startReceiver, webhookChannelConfig } from '../support/webhook.js';

const GOAL_MODEL = path.resolve('test/fixtures/claw/faux-goal-model.mjs');
/** One call: 600 input tokens at $2/M and 400 output tokens at $10/M. */
const CALL_COST = 0.0052;
/** Spent after 3 calls (0.0156), not after 2 (0.0104). */
const DAILY_COST = 0.015;

describeStores('claw budgets', (kind) => {
  const stops: Array<() => Promise<unknown>> = [];
  let database: TestDatabase | undefined;
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
    await database?.drop();
  });

  it(`stops a schedule's runs once the daily cost budget is spent (${kind === 'postgres' ? 'two workers' : 'one gateway'})`, { timeout: 240_000 }, async () => {
    // A webhook channel of the group: its allowed sender is told when the budget stops the schedule.
    const receiver = await startReceiver();
    stops.push(() => receiver.close());
    const sandbox: ClawSandbox & { database?: TestDatabase } = await clawSandboxOn(kind, `      budget:\n        per_day:\n          cost: ${DAILY_COST}\n${webhookChannelConfig(receiver.url, ['alice'])}`);
    sandbox.env.XDOG_TEST_WEBHOOK_SECRET = WEBHOOK_SECRET;
    database = sandbox.database;
    fs.appendFileSync(sandbox.configFile, 'models:\n  - { id: faux/demo, price: { input: 2, output: 10 } }\n');
    sandbox.env.XDOG_FAUX_SCRIPT = GOAL_MODEL;

    let env = sandbox.env;
    let notices: Array<Record<string, any>> | undefined;
    if (kind === 'postgres') {
      const workers: ClawWorker[] = [];
      for (const name of ['w1', 'w2']) {
        const worker = await startWorker(sandbox, name, 120_000);
        workers.push(worker);
        stops.push(async () => {
          await worker.client.close();
          await worker.process.stop();
        });
      }
      env = workers[1]!.view.env;
      await workers[1]!.client.call('subscribe', { group: 'main' });
      notices = collect(workers[1]!.client, 'notice');
    } else {
      const gateway: GatewayProcess = await startGateway(sandbox, 120_000);
      stops.push(() => gateway.stop());
    }
    const claw = (...args: string[]): any => {
      const result = runCli(['claw', ...args, '--json'], { env, cwd: sandbox.root });
      if (result.status !== 0) throw new Error(`xdog claw ${args.join(' ')} exited ${result.status}: ${result.stderr}${result.stdout}`);
      return JSON.parse(result.stdout);
    };

    claw('schedule', 'add', 'tick', '--every', '1h', '--prompt', 'tick');
    const history = (): Array<Record<string, any>> => claw('schedule', 'history', 'tick', '--limit', '200');
    for (let attempt = 0; attempt < 5; attempt++) {
      const run = claw('schedule', 'run-now', 'tick');
      await until(() => history().some((ended) => ended.id === run.id && !['queued', 'running'].includes(ended.status)), `run ${attempt + 1} to end`, 60_000);
    }

    const runs = history();
    const completed = runs.filter((run) => run.status === 'completed');
    expect(completed).toHaveLength(3);
    expect(runs.filter((run) => run.status === 'skipped' && /BUDGET_EXCEEDED/.test(run.error ?? ''))).toHaveLength(2);
    const skipped = runs.find((run) => run.status === 'skipped' && /BUDGET_EXCEEDED/.test(run.error ?? ''))!;
    expect(skipped.error).toContain('claw.groups.main.budget.per_day.cost');
    expect(skipped.error).toContain('raise claw.groups.main.budget.per_day.cost in the config');
    // Every skipped run came after the third completed one: nothing ran once the budget was spent.
    const lastCompleted = Math.max(...completed.map((run) => run.id));
    expect(runs.filter((run) => run.status === 'skipped' && run.id < lastCompleted)).toEqual([]);
    const [usage] = claw('usage');
    expect(usage).toMatchObject({ calls: 3, cost: 3 * CALL_COST });
    expect(claw('usage', '--by', 'schedule')).toMatchObject([{ by: 'schedule', calls: 3, cost: 3 * CALL_COST }]);
    if (notices) await until(() => notices!.some((notice) => notice.code === 'BUDGET_EXCEEDED'), 'the budget notice on the other worker');
    await until(() => receiver.messages().some((message) => message.to === 'alice' && /BUDGET_EXCEEDED/.test(message.text ?? '')), 'the channel message about the budget');
    expect(receiver.messages().find((message) => /BUDGET_EXCEEDED/.test(message.text ?? ''))!.text).toContain('claw.groups.main.budget.per_day.cost');
  });
  it.skipIf(kind !== 'sqlite')('refuses a child agent\'s model call once the daily budget is spent', { timeout: 180_000 }, async () => {
    const sandbox = await clawSandboxOn(kind, `      budget:\n        per_day:\n          cost: ${DAILY_COST}\n`);
    fs.appendFileSync(sandbox.configFile, 'models:\n  - { id: faux/demo, price: { input: 2, output: 10 } }\n');
    sandbox.env.XDOG_FAUX_SCRIPT = GOAL_MODEL;
    const gateway = await startGateway(sandbox, 120_000);
    stops.push(() => gateway.stop());
    const client = await connect(sandbox);
    stops.push(() => client.close());
    for (let call = 0; call < 3; call++) expect(runCli(['claw', 'send', `hello ${call}`], { env: sandbox.env, cwd: sandbox.root }).status).toBe(0);
    expect(sandbox.requests()).toHaveLength(3);

    const child = await client.callService('agents.start', { task: 'look around' });
    const [ended] = await client.callService('agents.wait', { ids: [child.id] });
    expect(ended.status).toBe('failed');
    expect(ended.error).toContain('claw.groups.main.budget.per_day.cost');
    // The child's call never reached the model.
    expect(sandbox.requests()).toHaveLength(3);
  });
});
