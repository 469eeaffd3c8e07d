/**
 * A plugin package adds a CLI command through oclif's plugin mechanism: the
 * example plugin's `xdog hello greet NAME` is installed, run, listed and
 * uninstalled with the built CLI.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

describe('plugin CLI commands', { timeout: 120_000 }, () => {
  it('installs `xdog hello greet NAME`, shows it in --help and plugins list, and removes it on uninstall', () => {
    const root = tempDir('xdog-e2e-commands-');
    const env = { XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data') };
    const cwd = root;

    const before = runCli(['hello', 'greet', 'Ada'], { env, cwd });
    expect(before.status).not.toBe(0);
    expect(before.stderr).toMatch(/command hello:greet:Ada not found/);

    const install = runCli(['plugins', 'install', path.join(repoRoot, 'docs/examples/xdog-plugin-hello')], { env, cwd });
    expect(install.stderr).toBe('');
    expect(install.status).toBe(0);

    const greet = runCli(['hello', 'greet', 'Ada'], { env, cwd });
    expect(greet.stderr).toBe('');
    expect(greet.stdout).toBe('Hello, Ada!\n');
    expect(greet.status).toBe(0);

    const help = runCli(['--help'], { env, cwd });
    expect(help.stdout).toMatch(/^\s+hello\s+Greetings from xdog-plugin-hello$/m);
    const listed = JSON.parse(runCli(['plugins', 'list', '--json'], { env, cwd }).stdout) as Array<{ name: string; provides: { commands: string[] } }>;
    expect(listed.find((plugin) => plugin.name === 'xdog-plugin-hello')?.provides.commands).toEqual(['hello greet']);
    expect(runCli(['plugins', 'list'], { env, cwd }).stdout).toMatch(/^xdog-plugin-hello .*commands: hello greet$/m);

    const uninstall = runCli(['plugins', 'uninstall', 'xdog-plugin-hello'], { env, cwd });
    expect(uninstall.status).toBe(0);
    const after = runCli(['hello', 'greet', 'Ada'], { env, cwd });
    expect(after.status).not.toBe(0);
    expect(after.stdout).toBe('');
    expect(runCli(['--help'], { env, cwd }).stdout).not.toMatch(/^\s+hello\s/m);
  });
});
