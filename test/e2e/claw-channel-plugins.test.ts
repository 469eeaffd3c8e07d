/**
 * Third-party channel types through the built CLI: a plugin declares the
 * types it binds in `provides.channels` (checked at install and at load, both
 * packages named on a clash, shown by `plugins list`); `claw channels list`
 * fails on a channel whose type no installed plugin provides; a third-party
 * type's bad settings point to that plugin, not to xdog's docs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clawSandbox, startGateway, type GatewayProcess } from '../support/claw.js';
import { repoRoot, runCliAsync } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

/** A plugin folder binding the channel type `type`, declaring `declared` in provides.channels. */
function channelPlugin(name: string, type: string, declared: string[]): string {
  const dir = tempDir('xdog-channel-plugin-');
  writeTree(dir, {
    'package.json': { name, version: '1.0.0', type: 'module', xdog: { entry: './index.js', provides: { channels: declared } } },
    'index.js': `import { ContainerModule, definePlugin, z } from 'xdog';
import { ChannelTypeContribution, defineChannelType } from 'xdog/plugins/channels';
const toy = defineChannelType(${JSON.stringify(type)}, z.object({ url: z.url() }).strict(), (context) => ({
  maxMessageChars: 500,
  async start() { context.log('toy started'); },
  async stop() {},
  async send() {},
  describe: () => ({ url: context.settings.url }),
}));
export default definePlugin({ name: ${JSON.stringify(name)}, module: new ContainerModule(({ bind }) => { bind(ChannelTypeContribution).toConstantValue(toy); }) });
`,
  });
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(repoRoot, path.join(dir, 'node_modules/xdog'), 'dir');
  return dir;
}

describe('third-party channel types', () => {
  const gateways: GatewayProcess[] = [];
  afterAll(async () => {
    for (const gateway of gateways) await gateway.stop();
  });

  it('are declared, checked, listed, and their bad settings name the plugin', async () => {
    const channel = (settings: string) => `  channels:\n    toy:\n      type: toy-net\n      group: main\n      allow_from: [alice]\n      settings: ${settings}\n`;
    const sandbox = clawSandbox(channel('{ url: 42 }'));
    const cli = (args: string[]) => runCliAsync(args, { env: sandbox.env, cwd: sandbox.root });

    const orphan = await cli(['claw', 'channels', 'list']);
    expect(orphan.status).toBe(2);
    expect(orphan.stdout).toContain('toy  toy-net (no installed plugin provides this type) → group main');
    expect(orphan.stderr).toContain('no installed plugin provides the type of claw.channels.toy ("toy-net")');
    expect(orphan.stderr).toMatch(/installed types: irc, webhook, wechat/);

    const linked = await cli(['plugins', 'link', channelPlugin('xdog-plugin-toy-net', 'toy-net', ['toy-net'])]);
    expect(linked.status, linked.stderr).toBe(0);
    const listed = await cli(['plugins', 'list']);
    expect(listed.stdout).toMatch(/xdog-plugin-toy-net.*channels: toy-net/);
    expect((await cli(['plugins', 'list'])).stdout).toMatch(/channels-irc.*channels: irc/);
    const known = await cli(['claw', 'channels', 'list', '--json']);
    expect(known.status, known.stderr).toBe(0);
    expect(JSON.parse(known.stdout)).toEqual([{ id: 'toy', type: 'toy-net', group: 'main', allowFrom: ['alice'], providedBy: 'xdog-plugin-toy-net' }]);

    // A second package providing the same type is refused at install, naming both.
    const clash = await cli(['plugins', 'link', channelPlugin('xdog-plugin-toy-copy', 'toy-net', ['toy-net'])]);
    expect(clash.status).not.toBe(0);
    expect(clash.stderr).toMatch(/channel "toy-net" is provided by both .*xdog-plugin-toy-net.* and .*xdog-plugin-toy-copy/);
    // A package binding a type it does not declare is refused at install, and is not left installed.
    const sneaky = await cli(['plugins', 'link', channelPlugin('xdog-plugin-sneaky-net', 'sneaky-net', [])]);
    expect(sneaky.status).not.toBe(0);
    expect(sneaky.stderr).toContain('binds channel type "sneaky-net" but does not declare it in provides.channels');
    expect((await cli(['plugins', 'list'])).stdout).not.toContain('xdog-plugin-sneaky-net');
    expect((await cli(['plugins', 'list'])).stdout).not.toContain('xdog-plugin-toy-copy');

    // Bad settings of the third-party type: the gateway refuses to start, pointing at the plugin.
    const refused = await startGateway(sandbox).then(
      (gateway) => (gateways.push(gateway), 'started'),
      (error: Error) => error.message,
    );
    expect(refused).toContain('claw.channels.toy.settings.url');
    expect(refused).toMatch(/see the documentation of plugin "xdog-plugin-toy-net" \(xdog-plugin-toy-net@1\.0\.0, [^)]*\) for the settings of a toy-net channel/);

    fs.writeFileSync(sandbox.configFile, fs.readFileSync(sandbox.configFile, 'utf8').replace('{ url: 42 }', '{ url: "http://127.0.0.1:9/toy" }'));
    const gateway = await startGateway(sandbox);
    gateways.push(gateway);
    const status = await cli(['claw', 'channels', 'status', 'toy']);
    expect(status.stdout).toContain('toy (toy-net → group main): running');
    expect(gateway.log()).toContain('toy started');
  }, 240_000);
});
