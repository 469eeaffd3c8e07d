/**
 * Children through a real gateway process with the faux model
 * (test/fixtures/children-model.mjs):
 * - the group's own model spawns two read-only children with the `agent`
 *   tool, waits for both and answers with their results; the faux log shows
 *   each child's requests apart from the parent's; a child inherits the
 *   parent's conversation with inherit_context; a preset from child_presets;
 * - scenario 16: the 4th running child is refused, a child whose model never
 *   stops ends at 16 calls, `--calls 20` is refused, a read-only child cannot
 *   write and no child can delegate;
 * - scenario 17: a steer acknowledged before a kill -9 shows as an uncertain
 *   row after the restart, and the child is never run again;
 * - an automatic (idle) reset is held back while a child runs and happens
 *   once it ended (the children service's resetSuppressed tap, on the
 *   testclock fixture's fake clock).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { clawSandbox, connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { repoRoot, runCli, type CliResult } from '../support/cli.js';

interface LoggedRequest {
  systemPrompt?: string;
  messages: Array<{ role: string; content: unknown }>;
  tools: Array<{ name: string }>;
}

const isChild = (request: LoggedRequest) => (request.systemPrompt ?? '').includes('child agent');
const userTexts = (request: LoggedRequest) => request.messages.filter((message) => message.role === 'user').map((message) => JSON.stringify(message.content));
/** The last user message of a request: a child's task. */
const taskOf = (request: LoggedRequest) => userTexts(request).at(-1)!;

function childrenSandbox(extraConfig = ''): ClawSandbox {
  const sandbox = clawSandbox(extraConfig);
  sandbox.env.XDOG_FAUX_SCRIPT = path.join(repoRoot, 'test/fixtures/children-model.mjs');
  fs.writeFileSync(sandbox.configFile, fs.readFileSync(sandbox.configFile, 'utf8').replace('enabled_tools: [bash, read]', 'enabled_tools: [bash, read, write, grep, current_time, agent]'));
  fs.writeFileSync(path.join(sandbox.workspace, 'a.txt'), 'alpha one\n');
  fs.writeFileSync(path.join(sandbox.workspace, 'b.txt'), 'beta two\nbeta three\n');
  return sandbox;
}

describe('claw children through the agent tool and the agents methods', { timeout: 300_000 }, () => {
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    client = gateway = undefined;
  });
  const claw = (sandbox: ClawSandbox, ...args: string[]): CliResult => runCli(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });

  it("lets the group's model spawn two read-only children that grep, wait for both and answer with their results", async () => {
    const sandbox = childrenSandbox('child_presets:\n  scout: { tools: [grep], max_model_calls: 4, label: scout }\n');
    gateway = await startGateway(sandbox);

    const sent = claw(sandbox, 'send', 'delegate alpha beta');
    expect(sent.stderr).toContain('[tool] agent {"action":"wait"');
    expect(sent).toMatchObject({ status: 0, stdout: 'alpha (completed): found 1 line(s): a.txt:1: alpha one\nbeta (completed): found 2 line(s): b.txt:1: beta two\nb.txt:2: beta three\n' });

    const requests = sandbox.requests() as LoggedRequest[];
    const parent = requests.filter((request) => !isChild(request));
    const children = requests.filter(isChild);
    expect(parent).toHaveLength(3);
    expect(parent[0]!.tools.map((tool) => tool.name)).toContain('agent');
    // Each child: its own task, two requests (grep, then its answer), only the group's read tools, never `agent`, none of the parent's words.
    expect(children.map(taskOf).sort()).toEqual(['"grep for alpha"', '"grep for alpha"', '"grep for beta"', '"grep for beta"']);
    for (const child of children) expect(child.tools.map((tool) => tool.name)).toEqual(['read', 'grep', 'current_time']);
    expect(children.some((child) => JSON.stringify(child.messages).includes('delegate'))).toBe(false);

    // The children are durable records of the group, linked to the session that spawned them.
    client = await connect(sandbox);
    const { activeSessionId } = (await client.call('group.status', {})) as { activeSessionId: string };
    const records = await client.callService('agents.list', {});
    expect(records.map((record: any) => [record.label, record.status, record.access, record.parentSessionId, record.modelCalls])).toEqual([
      ['alpha', 'completed', 'read-only', activeSessionId, 2],
      ['beta', 'completed', 'read-only', activeSessionId, 2],
    ]);
    // Navigation works again once they ended (the store holds no running child).
    expect(claw(sandbox, 'agents', 'list').stdout).toMatch(/completed \[alpha\] read-only: grep for alpha/);

    // inherit_context: the child starts from the parent's conversation, up to the prompt that spawned it.
    const recalled = claw(sandbox, 'send', 'recall the delegation');
    expect(recalled).toMatchObject({ status: 0 });
    expect(recalled.stdout).toMatch(/^recall \(completed\): recalled "delegate alpha beta" \(9 messages\)\n$/);
    const recall = (sandbox.requests() as LoggedRequest[]).filter(isChild).at(-1)!;
    expect(userTexts(recall)).toEqual(['"delegate alpha beta"', '"recall the delegation"', '"recall"']);

    // A preset from child_presets: its tools and its lower cap.
    const preset = JSON.parse(claw(sandbox, 'agents', 'start', '--preset', 'scout', '--json', 'grep for beta').stdout);
    expect(preset).toMatchObject({ label: 'scout', spec: { tools: ['grep'], maxModelCalls: 4 } });
    expect(claw(sandbox, 'agents', 'wait', preset.id).stdout).toMatch(/completed \[scout\] read-only: grep for beta\n {2}result: found 2 line/);
    const unknown = claw(sandbox, 'agents', 'start', '--preset', 'nope', 'x');
    expect(unknown.stderr).toMatch(/no child preset named "nope".*presets: scout/);
  });

  it('scenario 16: refuses a 4th running child, stops a looping child at 16 calls, refuses --calls 20, denies a read-only write and any delegation', async () => {
    const sandbox = childrenSandbox();
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);

    // Four spawns at once: three run, the fourth is refused and leaves no record (a refused spawn is not a failed child).
    const spawns = await Promise.allSettled([0, 1, 2, 3].map(() => client!.callService('agents.start', { task: 'hold' })));
    const held = spawns.flatMap((spawn) => (spawn.status === 'fulfilled' ? [spawn.value] : []));
    expect(held).toHaveLength(3);
    expect(String((spawns.find((spawn) => spawn.status === 'rejected') as PromiseRejectedResult).reason)).toMatch(/3 children are already running, the limit/);
    expect((await client.callService('agents.list', {})).map((child: any) => child.status)).toEqual(['running', 'running', 'running']);
    await expect(client.callService('agents.start', { task: 'hold' })).rejects.toThrow(/3 children are already running, the limit/);
    await expect(client.call('session.new', { expectedSessionId: null })).rejects.toThrow(/3 child agents are running \(c-.*\); changing the active session waits until they end/);
    for (const child of held) expect(await client.callService('agents.cancel', { id: child.id })).toMatchObject({ status: 'cancelled', error: 'cancelled by a client (agents.cancel)' });
    expect((await client.callService('agents.list', {})).map((child: any) => child.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);

    const looping = await client.callService('agents.start', { task: 'loop forever' });
    const [ended] = await client.callService('agents.wait', { ids: [looping.id] });
    expect(ended).toMatchObject({ status: 'limit', modelCalls: 16, error: 'the child used up its 16 model calls' });
    expect((sandbox.requests() as LoggedRequest[]).filter((request) => isChild(request) && taskOf(request) === '"loop forever"')).toHaveLength(16);

    const raised = claw(sandbox, 'agents', 'start', '--calls', '20', 'anything');
    expect(raised.status).not.toBe(0);
    expect(raised.stderr).toMatch(/max_model_calls 20 is over the child limit of 16/);

    const writer = await client.callService('agents.start', { task: 'write pwned.txt' });
    const delegating = await client.callService('agents.start', { task: 'spawn more', access: 'inherit' });
    await client.callService('agents.wait', { ids: [writer.id, delegating.id] });
    expect(fs.existsSync(path.join(sandbox.workspace, 'pwned.txt'))).toBe(false);
    const answered = (task: string) => (sandbox.requests() as LoggedRequest[]).filter((request) => isChild(request) && taskOf(request) === task).at(-1)!;
    expect(JSON.stringify(answered('"write pwned.txt"').messages.at(-1)!.content)).toContain('Tool \\"write\\" is not available');
    expect(answered('"spawn more"').tools.map((tool) => tool.name)).not.toContain('agent');
    expect(JSON.stringify(answered('"spawn more"').messages.at(-1)!.content)).toContain('Tool \\"agent\\" is not available');
  });

  it('holds an idle reset back while a child runs, and resets once it ended', async () => {
    const sandbox = childrenSandbox('      reset: { idle_minutes: 30 }\n');
    sandbox.env.XDOG_TEST_CLOCK_START = '2026-12-01T06:00:00Z';
    const installed = runCli(['plugins', 'install', path.join(repoRoot, 'test/fixtures/claw/testclock-plugin')], { env: sandbox.env, cwd: sandbox.root });
    expect(installed.status, installed.stderr).toBe(0);
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const connection = client;
    const activeSession = async () => ((await connection.call('group.status', {})) as { activeSessionId: string | null }).activeSessionId;
    const checkedPast = (at: string) => until(async () => ((await connection.callService('reset.status', {})) as { checkedAt: number }).checkedAt >= Date.parse(at), `a reset check at ${at}`);

    expect(claw(sandbox, 'send', 'delegate alpha').status).toBe(0);
    const first = await activeSession();
    const held = await client.callService('agents.start', { task: 'hold' });
    await client.callService('testclock.set', { at: '2026-12-01T06:30:01Z' });
    await checkedPast('2026-12-01T06:30:01Z');
    expect(await activeSession()).toBe(first);
    expect(gateway.log()).toContain(`the idle reset of session ${first} is held back: 1 child agent is running (${held.id}); changing the active session waits until it ends`);

    await client.callService('agents.cancel', { id: held.id });
    await client.callService('testclock.set', { at: '2026-12-01T06:31:00Z' });
    await until(async () => (await activeSession()) !== first, 'the idle reset after the child ended');
  });

  it('names who cancelled a child: the gateway when it stops, the parent agent with the agent tool', async () => {
    const sandbox = childrenSandbox();
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const held = await client.callService('agents.start', { task: 'hold' });
    await client.close();
    client = undefined;
    await gateway.stop();
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    expect(await client.callService('agents.inspect', { id: held.id })).toMatchObject({ status: 'cancelled', error: 'cancelled: the gateway stopped' });

    expect(claw(sandbox, 'send', 'abandon')).toMatchObject({ status: 0, stdout: 'cancelled: cancelled by the parent agent\n' });
  });

  it('scenario 17: a steer acknowledged before a kill -9 is an uncertain row after the restart, and the child is not run again', async () => {
    const sandbox = childrenSandbox();
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const child = await client.callService('agents.start', { task: 'hold' });
    const steered = claw(sandbox, 'agents', 'steer', child.id, 'look', 'at', 'b.txt', 'too');
    expect(steered.status, steered.stderr).toBe(0);
    await client.close();
    client = undefined;
    const holds = () => (sandbox.requests() as LoggedRequest[]).filter((request) => isChild(request) && taskOf(request) === '"hold"').length;
    expect(holds()).toBe(1);

    await gateway.kill9();
    gateway = await startGateway(sandbox);
    const inspected = claw(sandbox, 'agents', 'inspect', child.id);
    expect(inspected.status).toBe(0);
    expect(inspected.stdout).toMatch(new RegExp(`^${child.id} interrupted read-only: hold\\n {2}error: .*not run again`));
    expect(inspected.stdout).toContain('input #1 steer uncertain: look at b.txt too');
    client = await connect(sandbox);
    expect(await client.callService('agents.inspect', { id: child.id })).toMatchObject({ status: 'interrupted', inputs: [{ lane: 'steer', text: 'look at b.txt too', status: 'uncertain' }] });
    // Navigation is free again, and nothing ran the child a second time.
    await client.call('session.new', { expectedSessionId: null });
    expect(holds()).toBe(1);
  });
});
