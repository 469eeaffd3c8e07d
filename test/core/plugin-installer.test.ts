import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverPlugins } from '../../core/discovery.js';
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
    writeTree(other, { 'package.json': { name: 'xdog-plugin-hel', version: '1.0.0', type: 'module', xdog: { entry: './i.js', provides: {} } }, 'i.js': "import { definePlugin } from 'xdog';\nexport default definePlugin({ name: 'xdog-plugin-hel' });\n" });
    const isolated = { userDir, cwd: tempDir(), installRoot: null };
    await installPlugin(other, isolated);
    expect((await installPlugin(example, isolated)).map((plugin) => plugin.name)).toEqual(['xdog-plugin-hello']);
    expect((await installPlugin(example, isolated)).map((plugin) => plugin.name)).toEqual(['xdog-plugin-hello']);
  }, 120_000);

  it('refuses a plugin that binds a tool it did not declare in provides, and leaves nothing installed', async () => {
    const userDir = tempDir();
    const sneaky = tempDir();
    writeTree(sneaky, {
      'package.json': { name: 'xdog-plugin-sneaky', version: '1.0.0', type: 'module', xdog: { entry: './index.js', provides: {} } },
      'index.js': `import { definePlugin } from 'xdog';
export default definePlugin({ name: 'xdog-plugin-sneaky', tools: [{ name: 'sneak', description: 'd', parameters: { type: 'object' }, execute: async () => ({ content: [] }) }] });
`,
    });
    const failure = await installPlugin(sneaky, { userDir, cwd: tempDir(), installRoot: null }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'PLUGIN_INVALID', message: expect.stringMatching(/plugin "xdog-plugin-sneaky" \(xdog-plugin-sneaky@1\.0\.0, .*\) binds tool "sneak" but does not declare it in provides\.tools/) });
    expect(fs.existsSync(path.join(userDir, 'node_modules/xdog-plugin-sneaky'))).toBe(false);
  }, 120_000);

  it('links a plugin folder: an edit there is what the next kernel loads', async () => {
    const userDir = tempDir();
    const dev = tempDir();
    const source = (greeting: string) => `import { definePlugin } from 'xdog';
export default definePlugin({ name: 'xdog-plugin-dev', provides: { tools: ['greet'] }, tools: [{ name: 'greet', description: '${greeting}', parameters: { type: 'object' }, execute: async () => ({ content: [] }) }] });
`;
    writeTree(dev, { 'package.json': { name: 'xdog-plugin-dev', version: '0.0.1', type: 'module', xdog: { entry: './index.js', provides: { tools: ['greet'] } } }, 'index.js': source('first') });
    fs.mkdirSync(path.join(dev, 'node_modules'));
    fs.symlinkSync(repoRoot, path.join(dev, 'node_modules/xdog'), 'dir');
    const options = { userDir, cwd: tempDir(), installRoot: null };
    const [linked] = await installPlugin(dev, { ...options, link: true });
    expect(fs.realpathSync(linked!.dir)).toBe(fs.realpathSync(dev));
    fs.writeFileSync(path.join(dev, 'index.js'), source('edited').replace("'xdog';", "'xdog'; // v2"));
    const found = discoverPlugins(options).find((plugin) => plugin.name === 'xdog-plugin-dev');
    const { default: plugin } = (await import(`${found!.entry}?v=2`)) as { default: { tools: Array<{ description: string }> } };
    expect(plugin.tools[0]!.description).toBe('edited');
    await expect(installPlugin(path.join(dev, 'index.js'), { ...options, link: true })).rejects.toThrow(/cannot link .* it is not a local folder/);
  }, 120_000);

  it('names a corrupt plugin-directory package.json instead of treating it as empty', async () => {
    const userDir = tempDir();
    writeTree(userDir, { 'package.json': '{"dependencies": ' });
    await expect(uninstallPlugin('xdog-plugin-hello', { userDir })).rejects.toThrow(/user plugin directory's .*package\.json is unreadable/);
  });
});
