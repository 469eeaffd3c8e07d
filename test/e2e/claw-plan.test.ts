/**
 * Scenario 15 through a real gateway process and the built CLI: after
 * `plan start`, the faux model's bash call and file write are denied and a
 * read is allowed; `plan execute` with a stale revision is refused; plan
 * mode survives a restart and is carried into a fork; a corrupt plan
 * sidecar fails closed and shows in `xdog claw status`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openClawDataSource } from '../../entities/index.js';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { clawSandbox, connect, startGateway, until, watch, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { runCli, type CliResult } from '../support/cli.js';

describe('xdog claw plan', { timeout: 300_000 }, () => {
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    client = gateway = undefined;
  });

  const claw = (sandbox: ClawSandbox, ...args: string[]): CliResult => runCli(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
  const json = (sandbox: ClawSandbox, ...args: string[]): any => {
    const result = claw(sandbox, ...args, '--json');
    if (result.status !== 0) throw new Error(`xdog claw ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  /** The tool results of the latest prompt. */
  const toolResults = (sandbox: ClawSandbox) => {
    const messages = sandbox.requests().at(-1)!.messages;
    const lastUser = messages.map((message) => message.role).lastIndexOf('user');
    return messages.slice(lastUser + 1).filter((message) => message.role === 'toolResult');
  };
  async function promptAndWait(sandbox: ClawSandbox, calls: unknown[], key: string): Promise<void> {
    client ??= await connect(sandbox);
    const { ends } = await watch(client);
    await client.call('prompt', { text: `calls ${JSON.stringify(calls)}`, idempotencyKey: key });
    await until(() => ends.length === 1, 'the run to end');
    await client.close();
    client = undefined;
  }

  it('gates tools while planning, checks revisions, survives a restart and a fork, fails closed on a corrupt sidecar', async () => {
    const sandbox = clawSandbox();
    fs.writeFileSync(sandbox.configFile, fs.readFileSync(sandbox.configFile, 'utf8').replace('enabled_tools: [bash, read]', 'enabled_tools: [bash, read, write, update_plan]'));
    fs.writeFileSync(path.join(sandbox.workspace, 'notes.txt'), 'needle\n');
    gateway = await startGateway(sandbox);
    expect(claw(sandbox, 'send', 'hello').status).toBe(0);

    const started = claw(sandbox, 'plan', 'start', 'tidy', 'the', 'notes');
    expect(started).toMatchObject({ status: 0, stdout: 'plan (planning, revision 1): tidy the notes\n(no steps yet)\n' });
    const twice = claw(sandbox, 'plan', 'start', 'again');
    expect(twice.stderr).toMatch(/a plan is already planning in this session \(revision 1\)/);

    await promptAndWait(sandbox, [
      { name: 'bash', arguments: { command: 'touch shell.txt' } },
      { name: 'write', arguments: { path: 'pwned.txt', content: 'x' } },
      { name: 'read', arguments: { path: 'notes.txt' } },
      { name: 'update_plan', arguments: { revision: 1, steps: [{ text: 'read the notes', status: 'completed' }, { text: 'rewrite them', status: 'pending' }] } },
    ], 'k1');
    const [bash, write, read, update] = toolResults(sandbox);
    expect(bash).toMatchObject({ isError: true });
    expect(JSON.stringify(bash!.content)).toContain('plan mode: \\"bash\\" is not allowed while planning');
    expect(write).toMatchObject({ isError: true });
    expect(read).toMatchObject({ isError: false });
    expect(JSON.stringify(read!.content)).toContain('needle');
    expect(update).toMatchObject({ isError: false });
    expect(fs.existsSync(path.join(sandbox.workspace, 'shell.txt'))).toBe(false);
    expect(fs.existsSync(path.join(sandbox.workspace, 'pwned.txt'))).toBe(false);

    const stale = claw(sandbox, 'plan', 'execute', '1');
    expect(stale.status).not.toBe(0);
    expect(stale.stderr).toContain('the plan is at revision 2, not 1');

    await gateway.stop();
    gateway = await startGateway(sandbox);
    const shown = json(sandbox, 'plan');
    expect(shown.plan).toMatchObject({ status: 'planning', revision: 2, objective: 'tidy the notes', steps: [{ text: 'read the notes', status: 'completed' }, { text: 'rewrite them', status: 'pending' }] });
    expect(claw(sandbox, 'plan').stdout).toBe('plan (planning, revision 2): tidy the notes\n1. [x] read the notes\n2. [ ] rewrite them\n');

    // A branch starts with the plan its session had.
    const before = shown.sessionId as string;
    expect(claw(sandbox, 'sessions', 'fork', '1').status).toBe(0);
    const forked = json(sandbox, 'plan');
    expect(forked.sessionId).not.toBe(before);
    expect(forked.plan).toEqual(shown.plan);

    expect(json(sandbox, 'plan', 'execute', '2').plan).toMatchObject({ status: 'executing', revision: 3 });
    await promptAndWait(sandbox, [{ name: 'write', arguments: { path: 'done.txt', content: 'ok' } }], 'k2');
    expect(toolResults(sandbox)[0]).toMatchObject({ isError: false });
    expect(json(sandbox, 'plan', 'revise').plan).toMatchObject({ status: 'planning', revision: 4 });

    await gateway.stop();
    const store = await openClawDataSource({ type: 'sqlite', file: sandbox.storeFile });
    await store.query(`UPDATE claw_session_state SET plan = '{"version":1,"status":"dreaming"}' WHERE session_id = '${forked.sessionId}'`);
    await store.destroy();
    gateway = await startGateway(sandbox);
    const status = claw(sandbox, 'status');
    expect(status.status).toBe(0);
    expect(status.stdout).toContain(`problem: group main: the plan state of session ${forked.sessionId} is corrupt`);
    expect(json(sandbox, 'status').problems).toHaveLength(1);
    await promptAndWait(sandbox, [{ name: 'read', arguments: { path: 'notes.txt' } }], 'k3');
    expect(JSON.stringify(toolResults(sandbox)[0]!.content)).toContain('the plan state could not be read, so every tool call is denied');
    expect(claw(sandbox, 'plan', 'execute', '4').stderr).toMatch(/corrupt/);
    expect(claw(sandbox, 'plan', 'stop')).toMatchObject({ status: 0, stdout: `session ${forked.sessionId}: no plan\n` });
    expect(json(sandbox, 'status').problems).toEqual([]);
    await promptAndWait(sandbox, [{ name: 'read', arguments: { path: 'notes.txt' } }], 'k4');
    expect(toolResults(sandbox)[0]).toMatchObject({ isError: false });
  });

  it('measures every text limit in UTF-8 bytes and names the field, the limit and the size (plan objective, child task)', async () => {
    const sandbox = clawSandbox();
    gateway = await startGateway(sandbox);
    expect(claw(sandbox, 'send', 'hello').status).toBe(0);
    const accents = claw(sandbox, 'plan', 'start', 'é'.repeat(2049));
    expect(accents.status).not.toBe(0);
    expect(accents.stderr).toContain('plan.start: invalid params: objective: 4098 bytes of UTF-8, over the limit of 4096 bytes [INVALID_ARGUMENT]');
    const long = claw(sandbox, 'plan', 'start', 'x'.repeat(4097));
    expect(long.stderr).toContain('plan.start: invalid params: objective: 4097 bytes of UTF-8, over the limit of 4096 bytes [INVALID_ARGUMENT]');
    expect(claw(sandbox, 'plan', 'start', 'é'.repeat(2048))).toMatchObject({ status: 0 });

    const task = claw(sandbox, 'agents', 'start', 'é'.repeat(8193));
    expect(task.status).not.toBe(0);
    expect(task.stderr).toContain('agents.start: invalid params: task: 16386 bytes of UTF-8, over the limit of 16384 bytes [INVALID_ARGUMENT]');
    expect(gateway.log()).not.toMatch(/internal error/);
  });
});

