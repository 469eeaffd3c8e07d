/**
 * Goals and prices through a real gateway process and the built CLI, on the
 * faux model with fixed usage (1,000 tokens a call) and a configured price:
 * exact ledger costs; a goal submits its continuations only while the group
 * is idle and stops exactly at its budget with BUDGET_EXCEEDED; a done goal
 * submits nothing more; a failed check keeps a goal going; a goal survives a
 * gateway restart and a compaction.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { collect, connect, startGateway, until, watch, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { clawCommands } from '../support/cli.js';
import { clawSandboxOn } from '../support/stores.js';

const GOAL_MODEL = path.resolve('test/fixtures/claw/faux-goal-model.mjs');
/** One call: 600 input tokens at $2/M and 400 output tokens at $10/M. */
const CALL_COST = 0.0052;

describe('claw goals', { timeout: 300_000 }, () => {
  let sandbox: ClawSandbox;
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection;
  let ends: Array<Record<string, any>>;
  let changes: Array<Record<string, any>>;
  let notices: Array<Record<string, any>>;

  const { claw, json } = clawCommands(() => sandbox);
  const textOf = (message: { content: unknown }): string =>
    typeof message.content === 'string' ? message.content : (message.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
  /** The faux requests whose last message is a continuation of the goal `text`. */
  const continuations = (text: string) =>
    sandbox.requests().filter((request) => {
      const last = request.messages.at(-1)!;
      return last.role === 'user' && textOf(last).startsWith(`[system: goal] Continue toward the goal: ${text}`);
    });
  const goal = (): any => json('goal', 'show').goal;

  async function attach(): Promise<void> {
    client = await connect(sandbox);
    ({ ends } = await watch(client));
    changes = collect(client, 'group.changed');
    notices = collect(client, 'notice');
  }

  async function prompt(text: string, key: string): Promise<Record<string, any>> {
    const before = ends.length;
    const receipt = (await client.call('prompt', { text, idempotencyKey: key })) as { inputId: string };
    await until(() => ends.some((end) => end.inputId === receipt.inputId), `the run of "${text}" to end`, 60_000);
    expect(ends.length).toBeGreaterThan(before);
    return ends.find((end) => end.inputId === receipt.inputId)!;
  }

  beforeAll(async () => {
    sandbox = await clawSandboxOn('sqlite', '      compaction:\n        keep_recent_tokens: 5\n');
    const config = sandbox.configFile;
    fs.writeFileSync(
      config,
      fs.readFileSync(config, 'utf8').replace('enabled_tools: [bash, read]', 'enabled_tools: [bash, read, goal_update]') + 'models:\n  - { id: faux/demo, price: { input: 2, output: 10 } }\n',
    );
    sandbox.env.XDOG_FAUX_SCRIPT = GOAL_MODEL;
    gateway = await startGateway(sandbox, 120_000);
    await attach();
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    await gateway?.stop();
  });

  it('prices every ledger row exactly with the configured price', async () => {
    await prompt('hello', 'price-1');
    const [row] = json('usage');
    expect(row).toMatchObject({ by: 'model', key: 'faux/demo', model: 'faux/demo', calls: 1, unpricedCalls: 0, input: 600, output: 400, cost: CALL_COST });
    expect(json('usage', '--by', 'group')).toMatchObject([{ key: 'main', calls: 1, cost: CALL_COST }]);
    expect(claw('usage').stdout).toContain('$0.005200');
  });

  it('continues a goal only while the group is idle and stops exactly at its budget with BUDGET_EXCEEDED', async () => {
    // The goal is set while a person's run is busy: its first continuation waits for that run to end, never queues behind it.
    const busy = (await client.call('prompt', { text: 'slow 2', idempotencyKey: 'busy-1' })) as { inputId: string };
    const set = json('goal', 'set', 'keep stepping', '--budget-tokens', '3000');
    const sinceSet = changes.length;
    expect(set.goal).toMatchObject({ status: 'active', text: 'keep stepping', budgetTokens: 3000, nudges: 0 });
    await until(() => goal().status === 'exceeded', 'the goal to stop at its budget', 120_000);

    const stopped = goal();
    // Three calls of 1,000 tokens: the fourth is refused before it reaches the model.
    expect(stopped.spent).toEqual({ tokens: 3000, cost: 3 * CALL_COST, calls: 3 });
    expect(stopped.nudges).toBe(2);
    expect(stopped.stopReason).toContain(`goal ${stopped.id} budget.tokens`);
    expect(stopped.stopReason).toContain('xdog claw goal resume --group main --budget-tokens N');
    expect(json('usage', '--by', 'goal')).toMatchObject([{ by: 'goal', key: stopped.id, calls: 3, input: 1800, output: 1200 }]);
    expect(continuations('keep stepping')).toHaveLength(2);

    const goalEnds = (): Array<Record<string, any>> => ends.filter((end) => /^y/.test(end.inputId));
    await until(() => goalEnds().length === 2, 'both continuation runs to end', 30_000);
    const [first, last] = goalEnds();
    expect([first!.status, last!.status]).toEqual(['completed', 'error']);
    expect(last).toMatchObject({ errorCode: 'BUDGET_EXCEEDED' });
    expect(last!.errorMessage).toContain('used 3000 tokens, its budget of 3000');
    // The person's run ended before the first continuation started, and nothing ever waited in the queue.
    expect(ends.findIndex((end) => end.inputId === busy.inputId)).toBeLessThan(ends.indexOf(first!));
    const after = changes.slice(sinceSet);
    expect(after.every((change) => change.queued === 0)).toBe(true);
    // Idle between every run: the person's, then each continuation.
    expect(after.map((change) => change.busy).filter((busy, index, all) => index === 0 || busy !== all[index - 1])).toEqual([false, true, false, true, false]);
    await until(() => notices.some((notice) => notice.code === 'BUDGET_EXCEEDED'), 'the budget notice');
    expect(notices.find((notice) => notice.code === 'BUDGET_EXCEEDED')!.message).toContain('[BUDGET_EXCEEDED]');
  });

  it('keeps a goal whose check fails, ends it once the check passes, and then submits nothing more', async () => {
    json('goal', 'set', 'FINISH the file', '--check', 'test -f ok.txt', '--budget-tokens', '2000');
    await until(() => goal().status === 'exceeded', 'the goal with a failing check to use its budget', 120_000);
    // The model said done; the check failed, the model was told so, and the goal went on (here: until its budget).
    const told = sandbox.requests().map((request) => request.messages.at(-1)!).find((last) => last.role === 'toolResult' && textOf(last).includes('its check `test -f ok.txt` failed'));
    expect(told).toBeDefined();
    expect(textOf(told!)).toContain('(it exited 1)');

    fs.writeFileSync(path.join(sandbox.workspace, 'ok.txt'), 'ok\n');
    expect(json('goal', 'resume', '--budget-tokens', '4000').goal).toMatchObject({ status: 'active', budgetTokens: 4000 });
    await until(() => goal().status === 'done', 'the goal to be done', 120_000);
    expect(goal()).toMatchObject({ status: 'done', nudges: 2, note: 'finished the work' });

    // Two more idle periods: a done goal submits nothing.
    await prompt('after one', 'after-1');
    await prompt('after two', 'after-2');
    expect(continuations('FINISH the file')).toHaveLength(2);
    expect(goal().nudges).toBe(2);
  });

  it('survives a gateway restart and a compaction', async () => {
    const busy = (await client.call('prompt', { text: 'slow 60', idempotencyKey: 'busy-2' })) as { inputId: string };
    const set = json('goal', 'set', 'FINISH after the restart').goal;
    // Paused while the person's run still holds the group: no continuation was submitted.
    expect(json('goal', 'pause').goal).toMatchObject({ id: set.id, status: 'paused', nudges: 0 });
    await client.call('abort', {});
    await until(() => ends.some((end) => end.inputId === busy.inputId), 'the aborted run to end');

    await client.close();
    await gateway!.stop();
    gateway = await startGateway(sandbox, 120_000);
    await attach();
    expect(goal()).toMatchObject({ id: set.id, status: 'paused', text: 'FINISH after the restart', nudges: 0 });

    await prompt('one', 'restart-1');
    await prompt('two', 'restart-2');
    const receipt = json('compact');
    expect(receipt).toMatchObject({ status: 'compacted' });
    expect(receipt.summary).toContain("The group's goal (paused): FINISH after the restart");

    json('goal', 'resume');
    await until(() => goal().status === 'done', 'the resumed goal to be done', 120_000);
    const [continuation] = continuations('FINISH after the restart');
    expect(continuation).toBeDefined();
    // The model saw the compacted history (the summary with the goal) and the continuation.
    expect(textOf(continuation!.messages[0]!)).toContain("The group's goal (paused): FINISH after the restart");
    expect(goal()).toMatchObject({ id: set.id, status: 'done', nudges: 1 });
  });
});
