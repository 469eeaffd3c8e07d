/**
 * The read-only scope through a real gateway process and the built CLI:
 * `xdog claw readonly on|off|status`, a denied write beside an allowed read,
 * BUSY while a turn runs, durability across a restart, and a corrupt stored
 * scope that denies everything and says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openClawDataSource } from '../../entities/index.js';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { clawSandbox, connect, startGateway, until, watch, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { runCli, type CliResult } from '../support/cli.js';

describe('xdog claw readonly', { timeout: 300_000 }, () => {
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    client = gateway = undefined;
  });

  const claw = (sandbox: ClawSandbox, ...args: string[]): CliResult => runCli(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
  /** The tool results of the latest prompt (the last request's messages after its last user message). */
  const toolResults = (sandbox: ClawSandbox) => {
    const messages = sandbox.requests().at(-1)!.messages;
    const lastUser = messages.map((message) => message.role).lastIndexOf('user');
    return messages.slice(lastUser + 1).filter((message) => message.role === 'toolResult');
  };

  async function promptAndWait(connection: GatewayConnection, text: string, key: string): Promise<void> {
    const { ends } = await watch(connection);
    await connection.call('prompt', { text, idempotencyKey: key });
    await until(() => ends.length === 1, 'the run to end');
  }

  it('denies writes and shell while on, keeps reads, survives a restart, and lifts only by the user', async () => {
    const sandbox = clawSandbox();
    fs.writeFileSync(sandbox.configFile, fs.readFileSync(sandbox.configFile, 'utf8').replace('enabled_tools: [bash, read]', 'enabled_tools: [bash, read, write, ls, grep]'));
    fs.writeFileSync(path.join(sandbox.workspace, 'notes.txt'), 'needle\n');
    gateway = await startGateway(sandbox);

    expect(JSON.parse(claw(sandbox, 'readonly', '--json').stdout)).toMatchObject({ group: 'main', mode: 'full', readOnly: false, revision: 0 });
    client = await connect(sandbox);
    expect(client.hello.capabilities).toContain('readonly:1');
    // A change needs an idle group: refused while a turn runs, from any client.
    await client.call('prompt', { text: 'slow 30', idempotencyKey: 'k0' });
    await expect(client.callService('readonly.set', { readOnly: true })).rejects.toThrow(/group main is busy/);
    const busy = claw(sandbox, 'readonly', 'on');
    expect(busy.status).not.toBe(0);
    expect(busy.stderr).toMatch(/busy/);
    await client.call('abort', {});
    await until(async () => !((await client!.call('group.status', {})) as { busy: boolean }).busy, 'the group to be idle');
    expect(JSON.parse(claw(sandbox, 'readonly', '--json').stdout)).toMatchObject({ readOnly: false, revision: 0 });

    const on = claw(sandbox, 'readonly', 'on');
    expect(on).toMatchObject({ status: 0, stdout: 'group main: read-only on (revision 1)\n' });

    const calls = [
      { name: 'write', arguments: { path: 'pwned.txt', content: 'x' } },
      { name: 'bash', arguments: { command: 'touch shell.txt' } },
      { name: 'read', arguments: { path: 'notes.txt' } },
    ];
    await promptAndWait(client, `calls ${JSON.stringify(calls)}`, 'k1');
    const [write, bash, read] = toolResults(sandbox);
    expect(write).toMatchObject({ isError: true });
    expect(JSON.stringify(write!.content)).toContain('the read-only scope is on: \\"write\\" is not allowed');
    expect(bash).toMatchObject({ isError: true });
    expect(read).toMatchObject({ isError: false });
    expect(JSON.stringify(read!.content)).toContain('needle');
    expect(fs.existsSync(path.join(sandbox.workspace, 'pwned.txt'))).toBe(false);
    expect(fs.existsSync(path.join(sandbox.workspace, 'shell.txt'))).toBe(false);

    await client.close();
    client = undefined;

    await gateway.stop();
    gateway = await startGateway(sandbox);
    expect(JSON.parse(claw(sandbox, 'readonly', 'status', '--json').stdout)).toMatchObject({ mode: 'read-only', readOnly: true, revision: 1 });
    const stale = claw(sandbox, 'readonly', 'off', '--expect', '0');
    expect(stale.status).not.toBe(0);
    expect(stale.stderr).toMatch(/at revision 1, not 0/);
    expect(claw(sandbox, 'readonly', 'off', '--expect', '1')).toMatchObject({ status: 0, stdout: 'group main: read-only off (revision 2)\n' });
    client = await connect(sandbox);
    await promptAndWait(client, `calls ${JSON.stringify([calls[0]])}`, 'k3');
    expect(toolResults(sandbox)[0]).toMatchObject({ isError: false });
    expect(fs.readFileSync(path.join(sandbox.workspace, 'pwned.txt'), 'utf8')).toBe('x');
  });

  it('fails closed on a stored scope it cannot decode, and shows it', async () => {
    const sandbox = clawSandbox();
    fs.writeFileSync(path.join(sandbox.workspace, 'notes.txt'), 'needle\n');
    gateway = await startGateway(sandbox);
    expect(claw(sandbox, 'readonly', 'on').status).toBe(0);
    await gateway.stop();
    const store = await openClawDataSource({ type: 'sqlite', file: sandbox.storeFile });
    await store.query("UPDATE claw_access_scopes SET mode = 'sometimes' WHERE group_name = 'main'");
    await store.destroy();

    gateway = await startGateway(sandbox);
    const status = claw(sandbox, 'readonly');
    expect(status.status).toBe(0);
    expect(status.stdout).toMatch(/^group main: the read-only scope is corrupt, so every tool call is denied \(.*"sometimes"/);
    client = await connect(sandbox);
    await promptAndWait(client, `calls ${JSON.stringify([{ name: 'read', arguments: { path: 'notes.txt' } }])}`, 'k1');
    expect(toolResults(sandbox)[0]).toMatchObject({ isError: true });
    expect(JSON.stringify(toolResults(sandbox)[0]!.content)).toContain('the access scope could not be read, so every tool call is denied');
    expect(claw(sandbox, 'readonly', 'off').stderr).toMatch(/corrupt/);
    expect(claw(sandbox, 'readonly', 'on').stdout).toBe('group main: read-only on (revision 2)\n');
  });
});
