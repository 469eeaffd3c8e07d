import fs from 'node:fs';
import path from 'node:path';
import { Plugin } from '@oclif/core';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

function isolatedEnv(): NodeJS.ProcessEnv {
  const home = tempDir('xdog-home-');
  return { XDG_CONFIG_HOME: path.join(home, 'config'), XDG_DATA_HOME: path.join(home, 'data'), XDOG_CONFIG: '' };
}

describe('xdog CLI (built package)', () => {
  it('prints help with its topics', () => {
    const result = runCli(['--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('$ xdog [COMMAND]');
    expect(result.stdout).toMatch(/plugins\s+List, install and remove xdog plugins/);
  });

  it('xdog-agent --help is the help of the agent topic', () => {
    const result = runCli(['--help'], { bin: 'xdog-agent' });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Run and talk to agents');
    expect(result.stdout).toContain('$ xdog agent');
  });

  it('xdog-claw runs the claw topic', () => {
    const result = runCli(['--help'], { bin: 'xdog-claw' });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('The claw gateway');
  });

  it('plugins list --json prints parseable listings with name, version, source, provides and state', () => {
    const result = runCli(['plugins', 'list', '--json'], { env: isolatedEnv() });
    expect(result.status).toBe(0);
    const listings = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
    expect(Array.isArray(listings)).toBe(true);
    for (const listing of listings) {
      expect(Object.keys(listing)).toEqual(expect.arrayContaining(['name', 'version', 'source', 'provides', 'state']));
      expect(listing.source).toBe('builtin');
    }
  });

  it('a bad flag exits 2 with one line naming the problem', () => {
    const result = runCli(['plugins', 'list', '--no-such-flag'], { env: isolatedEnv() });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual(['xdog: Nonexistent flag: --no-such-flag [USAGE] (see --help for usage)']);
  });

  it('a missing argument exits 2 with one line that names the argument', () => {
    const result = runCli(['plugins', 'install'], { env: isolatedEnv() });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual(['xdog: Missing 1 required arg: spec npm spec or path [USAGE] (see --help for usage)']);
  });

  it('installs the example plugin into the user plugin directory, lists it as "user", and uninstalls it', () => {
    const env = isolatedEnv();
    const example = path.join(repoRoot, 'docs/examples/xdog-plugin-hello');
    const install = runCli(['plugins', 'install', example], { env });
    expect(install.stderr).toBe('');
    expect(install.status).toBe(0);
    expect(install.stdout).toContain('installed xdog-plugin-hello 1.0.0');

    const listed = JSON.parse(runCli(['plugins', 'list', '--json'], { env }).stdout) as Array<{ name: string; source: string; state: string; provides: { tools: string[] } }>;
    const hello = listed.find((plugin) => plugin.name === 'xdog-plugin-hello');
    expect(hello).toMatchObject({ source: 'user', state: 'ready', provides: { tools: ['hello'] } });

    const uninstall = runCli(['plugins', 'uninstall', 'xdog-plugin-hello'], { env });
    expect(uninstall.status).toBe(0);
    const after = JSON.parse(runCli(['plugins', 'list', '--json'], { env }).stdout) as Array<{ name: string }>;
    expect(after.map((plugin) => plugin.name)).not.toContain('xdog-plugin-hello');
  }, 180_000); // npm runs twice per install (staging, then the plugin directory)

  it('refuses to install a package that is not an xdog plugin, leaving the plugin directory untouched', () => {
    const env = isolatedEnv();
    const notPlugin = tempDir();
    fs.writeFileSync(path.join(notPlugin, 'package.json'), JSON.stringify({ name: 'plain-package', version: '1.0.0' }));
    const result = runCli(['plugins', 'install', notPlugin], { env });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('is not an xdog plugin');
    // It was checked in a staging prefix: the user plugin directory was never created.
    expect(fs.existsSync(path.join(env.XDG_DATA_HOME!, 'xdog/plugins'))).toBe(false);
  });

  it('uninstalling an unknown package names the problem', () => {
    const result = runCli(['plugins', 'uninstall', 'xdog-plugin-missing'], { env: isolatedEnv() });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^xdog: no user plugin package named "xdog-plugin-missing"/);
  });

  it('the committed oclif.manifest.json matches the commands in dist (rebuild it with `npm run build`)', async () => {
    const plugin = new Plugin({ root: repoRoot, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true });
    await plugin.load();
    const committed = JSON.parse(fs.readFileSync(path.join(repoRoot, 'oclif.manifest.json'), 'utf8')) as typeof plugin.manifest;
    const fresh = JSON.parse(JSON.stringify(plugin.manifest)) as typeof plugin.manifest;
    expect(Object.keys(committed.commands).sort()).toEqual(Object.keys(fresh.commands).sort());
    expect(committed.commands).toEqual(fresh.commands);
  });
});
