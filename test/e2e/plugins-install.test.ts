/**
 * `xdog plugins install/uninstall` through the built CLI: a refused install
 * changes nothing, an uninstall leaves the other plugins working, and a
 * reinstalled folder brings its new content.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

/** A folder plugin whose tool `tool` answers `reply`; its entry imports xdog, as every real plugin does. */
function pluginFolder(root: string, name: string, tool: string, reply: string, xdogField?: unknown): string {
  const dir = path.join(root, name);
  writeTree(dir, {
    'package.json': { name, version: '1.0.0', type: 'module', peerDependencies: { xdog: '*' }, xdog: xdogField ?? { entry: './index.js', provides: { tools: [tool] } } },
    'index.js': [
      "import { ContainerModule, ToolContribution, definePlugin } from 'xdog';",
      `const tool = { name: ${JSON.stringify(tool)}, description: 'test tool', parameters: { type: 'object', properties: {} }, async execute() { return { content: [{ type: 'text', text: ${JSON.stringify(reply)} }] }; } };`,
      `export default definePlugin({ name: ${JSON.stringify(name)}, provides: { tools: [${JSON.stringify(tool)}] }, module: new ContainerModule(({ bind }) => { bind(ToolContribution).toConstantValue(tool); }) });`,
    ].join('\n'),
  });
  return dir;
}

/** Every file and link under `dir`, with contents, to compare a folder before and after. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      const relative = path.relative(dir, full);
      if (entry.isSymbolicLink()) out[relative] = `-> ${fs.readlinkSync(full)}`;
      else if (entry.isDirectory()) walk(full);
      else out[relative] = fs.readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return out;
}

function setup() {
  const root = tempDir('xdog-e2e-plugins-');
  writeTree(root, { 'work/.keep': '' });
  const env = {
    XDG_CONFIG_HOME: path.join(root, 'config'),
    XDG_DATA_HOME: path.join(root, 'data'),
    XDOG_FAUX_SCRIPT: path.join(root, 'script.json'),
    XDOG_FAUX_LOG: path.join(root, 'requests.jsonl'),
  };
  const cwd = path.join(root, 'work');
  const userDir = path.join(root, 'data', 'xdog', 'plugins');
  const cli = (...args: string[]) => runCli(args, { env, cwd });
  /** Runs a chat whose model calls `tool` once; returns the tool result text the model saw. */
  const callTool = (tool: string): string => {
    writeTree(root, { 'script.json': { responses: [{ toolCalls: [{ name: tool, arguments: {} }] }, { text: 'ok' }] } });
    fs.rmSync(env.XDOG_FAUX_LOG, { force: true });
    const chat = cli('agent', 'chat', 'faux/demo', 'go');
    expect(chat.stderr).not.toContain('xdog:');
    expect(chat.status).toBe(0);
    const requests = fs.readFileSync(env.XDOG_FAUX_LOG, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { messages: Array<{ content: Array<{ text?: string }> }> });
    return requests.at(-1)!.messages.at(-1)!.content[0]!.text!;
  };
  return { root, userDir, cli, callTool };
}

describe('xdog plugins install/uninstall', { timeout: 240_000 }, () => {
  it('a refused install leaves the plugin directory exactly as before, and xdog keeps working', () => {
    const { root, userDir, cli, callTool } = setup();
    expect(cli('plugins', 'install', pluginFolder(root, 'xdog-plugin-good', 'good', 'good!')).status).toBe(0);
    const before = snapshot(userDir);

    const refusals: Array<[string, RegExp]> = [
      [pluginFolder(root, 'xdog-plugin-badfield', 'bad', 'x', { entry: './index.js', provides: { tools: 'bad' } }), /invalid "xdog" field in .*xdog-plugin-badfield\/package\.json: .*nothing was installed \[PLUGIN_INVALID\]/],
      [pluginFolder(root, 'xdog-plugin-outside', 'out', 'x', { entry: '../xdog-plugin-good/index.js', provides: { tools: ['out'] } }), /entry "\.\.\/xdog-plugin-good\/index\.js" is outside the package folder/],
      [pluginFolder(root, 'xdog-plugin-nofield', 'none', 'x', null), /is not an xdog plugin: its package.json has no "xdog" field/],
      [pluginFolder(root, 'xdog-plugin-clash', 'good', 'x'), /tool "good" is provided by both/],
    ];
    // The no-field case: a package.json without the field at all.
    const noField = path.join(root, 'xdog-plugin-nofield', 'package.json');
    fs.writeFileSync(noField, JSON.stringify({ name: 'xdog-plugin-nofield', version: '1.0.0' }));
    for (const [folder, message] of refusals) {
      const result = cli('plugins', 'install', folder);
      expect(result.status, folder).not.toBe(0);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(snapshot(userDir)).toEqual(before);
    }
    expect(cli('plugins', 'list').status).toBe(0);
    expect(callTool('good')).toBe('good!');
  });

  it('a package named xdog, or with a malformed package.json, is refused with a message saying so', () => {
    const { root, userDir, cli } = setup();
    const fake = path.join(root, 'fake-xdog');
    writeTree(fake, { 'package.json': { name: 'xdog', version: '9.9.9', xdog: { entry: './index.js' } }, 'index.js': '' });
    const named = cli('plugins', 'install', fake);
    expect(named.status).not.toBe(0);
    expect(named.stderr).toContain('is the package "xdog" itself, not a plugin [PLUGIN_INVALID]');

    const broken = path.join(root, 'broken');
    writeTree(broken, { 'package.json': '{"name": "xdog-plugin-broken",' });
    const malformed = cli('plugins', 'install', broken);
    expect(malformed.status).not.toBe(0);
    expect(malformed.stderr).toMatch(/broken\/package\.json is not valid JSON: .* \[PLUGIN_INVALID\]/);

    const nameless = path.join(root, 'nameless');
    writeTree(nameless, { 'package.json': { version: '1.0.0' } });
    expect(cli('plugins', 'install', nameless).stderr).toMatch(/nameless\/package\.json is malformed: it has no "name" string \[PLUGIN_INVALID\]/);
    expect(fs.existsSync(userDir)).toBe(false);
  });

  it('uninstalling one folder plugin leaves another working; reinstalling a changed folder installs the new content', () => {
    const { root, cli, callTool } = setup();
    const first = pluginFolder(root, 'xdog-plugin-first', 'first', 'first v1');
    const second = pluginFolder(root, 'xdog-plugin-second', 'second', 'second v1');
    expect(cli('plugins', 'install', first).status).toBe(0);
    expect(cli('plugins', 'install', second).status).toBe(0);

    const removed = cli('plugins', 'uninstall', 'xdog-plugin-first');
    expect(removed.status).toBe(0);
    expect(callTool('second')).toBe('second v1');

    pluginFolder(root, 'xdog-plugin-second', 'second', 'second v2');
    const reinstalled = cli('plugins', 'install', second);
    expect(reinstalled.stdout).toBe('installed xdog-plugin-second 1.0.0\n');
    expect(callTool('second')).toBe('second v2');
  });

  it('a corrupt or oversized package.json of an unrelated project dependency is skipped with a notice naming it', () => {
    const { root, cli } = setup();
    writeTree(root, {
      'script.json': { responses: [{ text: 'still here' }] },
      'work/package.json': { name: 'host', private: true },
      'work/node_modules/left-pad/package.json': '{"name": "left-pad", "version": ',
      'work/node_modules/big/package.json': JSON.stringify({ name: 'big', blob: 'x'.repeat(2 * 1024 * 1024) }),
    });
    for (const args of [['plugins', 'list'], ['agent', 'chat', 'faux/demo', 'hi', '--no-tools']]) {
      const result = cli(...args);
      expect(result.status, args.join(' ')).toBe(0);
      const notices = result.stderr.trim().split('\n');
      expect(notices).toHaveLength(2);
      expect(notices[0]).toMatch(/^xdog: notice: skipped a package while looking for plugins: .*work\/node_modules\/big\/package\.json is \d+ bytes, over the limit of 1048576 bytes/);
      expect(notices[1]).toMatch(/^xdog: notice: skipped a package while looking for plugins: .*work\/node_modules\/left-pad\/package\.json is not valid JSON/);
    }
    expect(cli('agent', 'chat', 'faux/demo', 'hi', '--no-tools').stdout).toBe('still here\n');
  });
});
