import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { installPlugin, packageNameOfSpec, uninstallPlugin } from '../../core/plugin-installer.js';
import { repoRoot } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

const example = path.join(repoRoot, 'docs/examples/xdog-plugin-hello');

describe('plugin installer', () => {
  it('tells the package a spec names without asking npm', () => {
    expect(packageNameOfSpec('xdog-plugin-hello')).toBe('xdog-plugin-hello');
    expect(packageNameOfSpec('xdog-plugin-hello@^1.2.0')).toBe('xdog-plugin-hello');
    expect(packageNameOfSpec('@acme/xdog-tools@1.0.0')).toBe('@acme/xdog-tools');
    expect(packageNameOfSpec('@acme/xdog-tools')).toBe('@acme/xdog-tools');
    expect(packageNameOfSpec(example)).toBe('xdog-plugin-hello');
    expect(packageNameOfSpec('https://example.test/pkg.tgz')).toBeUndefined();
    expect(packageNameOfSpec('github:acme/xdog-tools')).toBeUndefined();
  });

  it('reports the plugin on a reinstall of the same package, and only that one', async () => {
    const userDir = tempDir();
    const other = tempDir();
    writeTree(other, { 'package.json': { name: 'xdog-plugin-hel', version: '1.0.0', xdog: { entry: './i.js', provides: { tools: ['other'] } } }, 'i.js': '' });
    const isolated = { userDir, cwd: tempDir(), installRoot: null };
    await installPlugin(other, isolated);
    expect((await installPlugin(example, isolated)).map((plugin) => plugin.name)).toEqual(['xdog-plugin-hello']);
    expect((await installPlugin(example, isolated)).map((plugin) => plugin.name)).toEqual(['xdog-plugin-hello']);
  }, 120_000);

  it('names a corrupt plugin-directory package.json instead of treating it as empty', async () => {
    const userDir = tempDir();
    writeTree(userDir, { 'package.json': '{"dependencies": ' });
    await expect(uninstallPlugin('xdog-plugin-hello', { userDir })).rejects.toThrow(/user plugin directory's .*package\.json is unreadable/);
  });
});
