/**
 * Extensions in the claw gateway: enabled in the config, activated by a
 * group's first turn, their pre-tool veto applied to the group's runs, their
 * entries committed in the session store, a quarantine that fails tool calls
 * closed, and `xdog claw extensions list|reload` from the CLI.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { clawSandbox, connect, startGateway, until, watch, type GatewayProcess } from '../support/claw.js';
import { runCli } from '../support/cli.js';
import { writeTree } from '../support/temp.js';

const EXTENSION = `
export default function setup(api) {
  let stored = [];
  api.beforeToolCall(({ args }) => {
    if (String(args.command).includes('crash')) throw new Error('the guard crashed');
    if (String(args.command).includes('forbidden')) return { block: true, reason: 'forbidden by the test guard' };
  });
  api.afterToolCall(async ({ args }) => {
    const receipt = await api.appendEntry('ran', { command: args.command });
    stored.push(receipt.id);
    api.status('entries', stored.join(','));
  });
}`;

describe('extensions in the claw gateway', { timeout: 120_000 }, () => {
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    client = gateway = undefined;
  });

  it('gates the group tools, stores entries, quarantines, and reloads through the CLI', async () => {
    const sandbox = clawSandbox('extensions: [test-guard]\n');
    const folder = path.join(sandbox.root, 'test-guard');
    writeTree(folder, { 'package.json': { name: 'test-guard', version: '1.0.0', type: 'module', xdog: { extension: './index.js' } }, 'index.js': EXTENSION });
    const installed = runCli(['plugins', 'install', folder], { env: sandbox.env, cwd: sandbox.root });
    expect(installed.status, installed.stderr).toBe(0);
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    expect(client.hello.capabilities).toContain('extensions:1');
    const { ends } = await watch(client);
    const lastToolResult = () => JSON.stringify(sandbox.requests().at(-1)!.messages.at(-1));

    expect(await client.callService('extensions.list', {})).toMatchObject([{ id: 'test-guard', state: 'inactive' }]);
    await client.call('prompt', { text: 'run echo allowed', idempotencyKey: 'k1' });
    await until(() => ends.length === 1, 'the first run');
    expect(lastToolResult()).toContain('allowed');
    const [afterFirst] = (await client.callService('extensions.list', {})) as Array<{ state: string; status: Record<string, string> }>;
    expect(afterFirst).toMatchObject({ state: 'active', status: { entries: expect.stringMatching(/^\d+$/) } });

    await client.call('prompt', { text: 'run echo forbidden', idempotencyKey: 'k2' });
    await until(() => ends.length === 2, 'the vetoed run');
    expect(lastToolResult()).toContain('forbidden by the test guard');

    await client.call('prompt', { text: 'run echo crash', idempotencyKey: 'k3' });
    await until(() => ends.length === 3, 'the run whose guard crashed');
    expect(lastToolResult()).toContain('fails closed');
    const listed = runCli(['claw', 'extensions', 'list'], { env: sandbox.env });
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/test-guard 1\.0\.0: quarantined \(its beforeToolCall failed: the guard crashed\); tool calls fail closed/);

    await client.call('prompt', { text: 'run echo still-closed', idempotencyKey: 'k4' });
    await until(() => ends.length === 4, 'a run while quarantined');
    expect(lastToolResult()).toContain('is quarantined');
    expect(lastToolResult()).not.toContain('still-closed\\\\n');

    const reloaded = runCli(['claw', 'extensions', 'reload', 'test-guard'], { env: sandbox.env });
    expect(reloaded.status, reloaded.stderr).toBe(0);
    expect(reloaded.stdout).toMatch(/test-guard 1\.0\.0: active/);
    await client.call('prompt', { text: 'run echo works-again', idempotencyKey: 'k5' });
    await until(() => ends.length === 5, 'the run after reload');
    expect(lastToolResult()).toContain('works-again');
    expect(fs.existsSync(sandbox.configFile)).toBe(true);
  });
});
