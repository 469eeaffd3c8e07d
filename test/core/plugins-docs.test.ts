/**
 * docs/plugins.md is enough on its own because every code block in it is a
 * file under docs/examples/ that this suite compiles and runs: the TypeScript
 * examples are typechecked against the built package and their main() run,
 * the example plugin's own test script runs in a project that installed it,
 * and every `xdog` line of the shell blocks runs against the built CLI.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const doc = fs.readFileSync(path.join(repoRoot, 'docs/plugins.md'), 'utf8');
const examples = path.join(repoRoot, 'docs/examples/plugins');
const helloDir = path.join(repoRoot, 'docs/examples/xdog-plugin-hello');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.md') && !entry.name.endsWith('.d.ts') && entry.name !== 'tsconfig.json')
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The `xdog ...` command lines of a shell example, without comments. */
function xdogLines(file: string): string[][] {
  return fs.readFileSync(file, 'utf8').split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line.startsWith('xdog '))
    .map((line) => line.split(/\s+/).slice(1));
}

describe('docs/plugins.md', { timeout: 180_000 }, () => {
  it('embeds only example files, verbatim, and embeds every one of them', () => {
    const blocks = [...doc.matchAll(/```\w*\n([\s\S]*?)\n```/g)].map((match) => match[1]!.trim());
    const files = [...filesUnder(examples), ...filesUnder(helloDir)];
    const contents = new Map(files.map((file) => [fs.readFileSync(file, 'utf8').trim(), path.relative(repoRoot, file)]));
    for (const [index, block] of blocks.entries()) expect(contents.has(block), `code block ${index + 1} is not a file under docs/examples:\n${block.slice(0, 200)}`).toBe(true);
    const embedded = new Set(blocks.map((block) => contents.get(block)));
    expect([...contents.values()].filter((file) => !embedded.has(file))).toEqual([]);
  });

  it('its TypeScript examples typecheck against the built package', () => {
    execFileSync(process.execPath, [path.join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', path.join(examples, 'tsconfig.json')], { cwd: repoRoot, stdio: 'pipe' });
  });

  it('the full-form plugin binds its service and tool', async () => {
    const { main } = (await import(path.join(examples, 'long-form.ts'))) as { main(): Promise<string> };
    expect(await main()).toMatch(/^\[\d{4}-\d\d-\d\dT[\d:.]+Z\] hi$/);
  });

  it('every hook taps as the table says', async () => {
    const { main } = (await import(path.join(examples, 'hooks.ts'))) as { main(): Promise<string[]> };
    expect(await main()).toEqual([
      'input prompt images=0',
      'context faux/demo turn=1',
      'before read {"path":"/etc/shadow"} remote=false id=true',
      'after read isError=true',
      'context faux/demo turn=2',
      'input prompt images=0',
    ]);
  });

  it('the host swaps read, removes bash and keeps the other built-in tools', async () => {
    const { main } = (await import(path.join(examples, 'host.ts'))) as { main(): Promise<string[]> };
    expect(await main()).toEqual(['read', 'write', 'edit', 'ls', 'grep', 'find', 'current_time']);
  });

  it('the "Testing a plugin" script passes in a project that has the plugin and xdog', () => {
    const project = tempDir();
    const plugin = path.join(project, 'xdog-plugin-hello');
    fs.cpSync(helloDir, plugin, { recursive: true });
    fs.mkdirSync(path.join(plugin, 'node_modules'));
    fs.symlinkSync(repoRoot, path.join(plugin, 'node_modules/xdog'), 'dir');
    const run = spawnSync(process.execPath, ['test.js'], { cwd: plugin, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('ok\n');
  });

  it('the install commands work as shown', () => {
    const root = tempDir();
    const env = { XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data') };
    const results = xdogLines(path.join(examples, 'install.sh')).map((args) => ({ args, ...runCli(args, { env, cwd: repoRoot }) }));
    for (const result of results) expect(result.status, `xdog ${result.args.join(' ')}: ${result.stderr}`).toBe(0);
    expect(results.find((result) => result.args[0] === 'hello')?.stdout).toBe('Hello, Ada!\n');
  });

  it('the development loop picks up an edit to a linked plugin', () => {
    const root = tempDir();
    const env = { XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data') };
    // `cd xdog-plugin-hello` and `npm install --save-dev xdog`, without the network: a copy with xdog linked in.
    const folder = path.join(root, 'xdog-plugin-hello');
    fs.cpSync(helloDir, folder, { recursive: true });
    fs.mkdirSync(path.join(folder, 'node_modules'));
    fs.symlinkSync(repoRoot, path.join(folder, 'node_modules/xdog'), 'dir');
    const [link, greet, uninstall] = xdogLines(path.join(examples, 'develop.sh'));
    expect(runCli(link!, { env, cwd: folder }).status).toBe(0);
    expect(runCli(greet!, { env, cwd: folder }).stdout).toBe('Hello, Ada!\n');
    const command = path.join(folder, 'commands/hello/greet.js');
    fs.writeFileSync(command, fs.readFileSync(command, 'utf8').replace('`Hello, ${args.name}!`', '`Howdy, ${args.name}!`'));
    expect(runCli(greet!, { env, cwd: folder }).stdout).toBe('Howdy, Ada!\n');
    expect(runCli(uninstall!, { env, cwd: folder }).status).toBe(0);
    expect(fs.existsSync(folder)).toBe(true);
  });
});
