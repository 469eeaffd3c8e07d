/**
 * Gateway services through a real gateway process: a third-party plugin,
 * installed with `xdog plugins install`, adds a protocol method and a
 * capability flag, follows runs through the `runEnded` hook, and its tool
 * learns which group it serves from ClawGroupToken.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { connect, startGateway, until, watch, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { runCli } from '../support/cli.js';
import { clawSandboxOn, describeStores } from '../support/stores.js';
import { writeTree } from '../support/temp.js';

const SERVICE_PLUGIN = [
  "import { ContainerModule, KernelToken, definePlugin, z } from 'xdog';",
  "import { ClawGroupToken, GatewayServiceContribution, gatewayMethod } from 'xdog/plugins/claw-gateway';",
  'const ended = [];',
  'const service = {',
  "  name: 'run-log',",
  "  capabilities: ['run-log:1'],",
  "  methods: { 'runlog.list': gatewayMethod(z.object({ group: z.string().optional() }).strict(), (params) => ended.filter((run) => !params.group || run.group === params.group)) },",
  '  start(host) {',
  "    host.hooks.runEnded.tap('run-log', (run) => ended.push({ group: run.group, status: run.status, inputId: run.inputId, ordered: run.endedAt >= run.startedAt }));",
  '  },',
  '};',
  'const whereAmI = (context) => {',
  '  const kernel = context.get(KernelToken);',
  '  const group = kernel.isBound(ClawGroupToken) ? kernel.get(ClawGroupToken) : undefined;',
  "  const text = group ? `group ${group.name} in ${group.workspace}` : 'not in a claw group';",
  "  return { name: 'where_am_i', description: 'names the claw group', parameters: { type: 'object', properties: {} }, async execute() { return { content: [{ type: 'text', text }] }; } };",
  '};',
  'export default definePlugin({',
  "  name: 'xdog-plugin-run-log',",
  "  provides: { tools: ['where_am_i'] },",
  '  tools: [whereAmI],',
  '  module: new ContainerModule(({ bind }) => { bind(GatewayServiceContribution).toConstantValue(service); }),',
  '});',
].join('\n');

describeStores('gateway services', (kind) => {
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    client = gateway = undefined;
  });

  function installServicePlugin(sandbox: ClawSandbox): void {
    const folder = path.join(sandbox.root, 'run-log-plugin');
    writeTree(folder, {
      'package.json': { name: 'xdog-plugin-run-log', version: '1.0.0', type: 'module', peerDependencies: { xdog: '*' }, xdog: { entry: './index.js', provides: { tools: ['where_am_i'] } } },
      'index.js': SERVICE_PLUGIN,
    });
    const installed = runCli(['plugins', 'install', folder], { env: sandbox.env, cwd: sandbox.root });
    expect(installed.status, installed.stderr).toBe(0);
  }

  it('adds its method and capability, sees runs end, and its tool knows its group', async () => {
    const sandbox = await clawSandboxOn(kind);
    fs.writeFileSync(sandbox.configFile, fs.readFileSync(sandbox.configFile, 'utf8').replace('enabled_tools: [bash, read]', 'enabled_tools: [bash, read, where_am_i]'));
    installServicePlugin(sandbox);
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    expect(client.hello.capabilities).toContain('run-log:1');
    const { ends } = await watch(client);

    const receipt = (await client.call('prompt', { text: 'call where_am_i', idempotencyKey: 'k1' })) as { inputId: string };
    await until(() => ends.length === 1, 'the run to end');
    const toolResult = sandbox.requests().at(-1)!.messages.at(-1)!;
    expect(toolResult.role).toBe('toolResult');
    expect(JSON.stringify(toolResult.content)).toContain(`group main in ${sandbox.workspace}`);

    await until(async () => ((await client!.callService('runlog.list', { group: 'main' })) as unknown[]).length === 1, 'the service to record the run');
    expect(await client.callService('runlog.list', {})).toEqual([{ group: 'main', status: 'completed', inputId: receipt.inputId, ordered: true }]);
    await expect(client.callService('runlog.list', { group: 7 })).rejects.toThrow(/runlog\.list: invalid params: group/);
  });

  it('refuses to start when a service method collides with a gateway method', async () => {
    const sandbox = await clawSandboxOn(kind);
    installServicePlugin(sandbox);
    const plugin = path.join(sandbox.env.XDG_DATA_HOME!, 'xdog', 'plugins');
    const entries = fs.readdirSync(plugin, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('run-log-plugin/index.js') || file.endsWith('xdog-plugin-run-log/index.js'));
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      const file = path.join(plugin, entry);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace("'runlog.list'", "'session.list'"));
    }
    await expect(startGateway(sandbox)).rejects.toThrow(/gateway service "run-log" adds method "session\.list", which the gateway already has/);
  });
});
