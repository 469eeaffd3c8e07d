import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKernel, discoverExtensions, discoverPlugins, ErrorCodes, ToolContribution, XdogError } from '../../core/index.js';
import { createFauxStreamFn } from '../../plugins/faux/index.js';
import { repoRoot } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

const exampleDir = path.join(repoRoot, 'docs/examples/xdog-plugin-hello');

/** A host project whose node_modules holds the example plugin and xdog itself (linked, as npm would). */
function projectWithExample(): string {
  const project = tempDir();
  writeTree(project, { 'package.json': { name: 'host-app', private: true } });
  const nodeModules = path.join(project, 'node_modules');
  fs.mkdirSync(nodeModules);
  fs.cpSync(exampleDir, path.join(nodeModules, 'xdog-plugin-hello'), { recursive: true });
  fs.symlinkSync(repoRoot, path.join(nodeModules, 'xdog'), 'dir');
  return project;
}

const isolated = { installRoot: null, userDir: null } as const;

describe('plugin discovery', () => {
  it('finds a plugin package installed in the project, walking up from a subfolder', () => {
    const project = projectWithExample();
    const nested = path.join(project, 'src/deep');
    fs.mkdirSync(nested, { recursive: true });
    const plugins = discoverPlugins({ cwd: nested, ...isolated });
    const hello = plugins.find((plugin) => plugin.name === 'xdog-plugin-hello');
    expect(hello).toMatchObject({
      packageName: 'xdog-plugin-hello',
      version: '1.0.0',
      source: 'project',
      entry: path.join(project, 'node_modules/xdog-plugin-hello/index.js'),
    });
    expect(hello?.provides.tools).toEqual(['hello']);
  });

  it('skips a dependency whose package.json is corrupt, too large or not an object, with a notice naming it', () => {
    const project = projectWithExample();
    const nodeModules = path.join(project, 'node_modules');
    writeTree(nodeModules, {
      'corrupt/package.json': '{"name": "corrupt",',
      '@scope/huge/package.json': JSON.stringify({ name: 'huge', padding: 'x'.repeat(2 * 1024 * 1024) }),
      'nothing/package.json': 'null',
    });
    const notices: string[] = [];
    const plugins = discoverPlugins({ cwd: project, ...isolated, onSkipped: (notice) => notices.push(notice) });
    expect(plugins.map((plugin) => plugin.name)).toContain('xdog-plugin-hello');
    expect(notices).toEqual([
      expect.stringMatching(/^skipped a package while looking for plugins: .*node_modules\/@scope\/huge\/package\.json is \d+ bytes, over the limit of 1048576 bytes/),
      expect.stringMatching(/^skipped a package while looking for plugins: .*node_modules\/corrupt\/package\.json is not valid JSON/),
      expect.stringMatching(/^skipped a package while looking for plugins: .*node_modules\/nothing\/package\.json is not a JSON object/),
    ]);
  });

  it('ignores packages without an "xdog" field, scoped ones included', () => {
    const project = tempDir();
    writeTree(project, {
      'node_modules/left-pad/package.json': { name: 'left-pad', version: '1.0.0' },
      'node_modules/@acme/util/package.json': { name: '@acme/util', version: '2.0.0' },
      'node_modules/@acme/xdog-tools/package.json': { name: '@acme/xdog-tools', version: '0.1.0', xdog: { entry: './i.js', provides: { tools: ['t'] } } },
    });
    const names = discoverPlugins({ cwd: project, ...isolated }).map((plugin) => plugin.name);
    expect(names).toEqual(['@acme/xdog-tools']);
  });

  it('is inert: a plugin whose entry throws on import is listed, and loading it fails clearly', async () => {
    const project = tempDir();
    writeTree(project, {
      'node_modules/xdog-plugin-broken/package.json': { name: 'xdog-plugin-broken', version: '0.0.1', type: 'module', xdog: { entry: './index.js' } },
      'node_modules/xdog-plugin-broken/index.js': `globalThis.__brokenImported = true; throw new Error('boom at import');`,
    });
    const [broken] = discoverPlugins({ cwd: project, ...isolated });
    expect(broken?.name).toBe('xdog-plugin-broken');
    expect((globalThis as Record<string, unknown>).__brokenImported).toBeUndefined();

    const failure = await createKernel({ plugins: [broken!] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(XdogError);
    expect((failure as XdogError).code).toBe(ErrorCodes.PLUGIN_LOAD_FAILED);
    expect((failure as XdogError).message).toContain('xdog-plugin-broken');
    expect((failure as XdogError).message).toContain('boom at import');
  });

  it('refuses the same provided name from two packages, naming both', () => {
    const project = tempDir();
    writeTree(project, {
      'node_modules/xdog-plugin-a/package.json': { name: 'xdog-plugin-a', version: '1.0.0', xdog: { entry: './a.js', provides: { tools: ['search'] } } },
      'node_modules/xdog-plugin-b/package.json': { name: 'xdog-plugin-b', version: '2.0.0', xdog: { entry: './b.js', provides: { tools: ['search'] } } },
    });
    expect(() => discoverPlugins({ cwd: project, ...isolated })).toThrowError(/tool "search" is provided by both xdog-plugin-a@1\.0\.0 .* and xdog-plugin-b@2\.0\.0/);
  });

  it('rejects a malformed "xdog" field with the file named', () => {
    const project = tempDir();
    writeTree(project, { 'node_modules/xdog-plugin-bad/package.json': { name: 'xdog-plugin-bad', xdog: { entry: 42 } } });
    expect(() => discoverPlugins({ cwd: project, ...isolated })).toThrowError(/invalid "xdog" field in .*xdog-plugin-bad\/package\.json/);
  });

  it('refuses an entry outside its own package folder', () => {
    const project = tempDir();
    writeTree(project, {
      'node_modules/xdog-plugin-escape/package.json': { name: 'xdog-plugin-escape', xdog: { entry: '../other-package/index.js' } },
      'node_modules/xdog-plugin-absolute/package.json': { name: 'xdog-plugin-absolute', xdog: { plugins: [{ name: 'abs', entry: '/tmp/evil.js' }] } },
    });
    const failure = (() => {
      try {
        discoverPlugins({ cwd: project, ...isolated });
      } catch (error) {
        return error as XdogError;
      }
    })();
    expect(XdogError.is(failure, ErrorCodes.PLUGIN_INVALID)).toBe(true);
    expect(failure!.message).toMatch(/entry .* is outside the package folder/);
  });

  it('searches the user plugin directory and labels its plugins "user"', () => {
    const userDir = tempDir();
    writeTree(userDir, { 'node_modules/xdog-plugin-u/package.json': { name: 'xdog-plugin-u', version: '1.0.0', xdog: { entry: './u.js' } } });
    const plugins = discoverPlugins({ cwd: tempDir(), installRoot: null, userDir });
    expect(plugins.map((plugin) => [plugin.name, plugin.source])).toEqual([['xdog-plugin-u', 'user']]);
  });

  it('imports the example plugin on load: its tool is bound and its hook is tapped on each agent', async () => {
    const project = projectWithExample();
    const hello = discoverPlugins({ cwd: project, ...isolated }).find((plugin) => plugin.name === 'xdog-plugin-hello')!;
    const kernel = await createKernel({ plugins: [hello] });
    expect(kernel.getAll(ToolContribution).map((tool) => tool.name)).toEqual(['hello']);
    const agent = kernel.createAgent(createFauxStreamFn({ responses: [] }), { model: 'faux/demo' });
    expect(agent.hooks.beforeToolCall.taps.map((tap) => tap.name)).toEqual(['xdog-plugin-hello']);
    await kernel.open();
    await kernel.close();
  });

  it("declares in xdog's own package.json the tools each builtin plugin's definition provides (discovery reads only the manifest)", async () => {
    const builtin = discoverPlugins({ installRoot: repoRoot, userDir: null, cwd: tempDir(), cacheFile: null }).filter((plugin) => plugin.source === 'builtin' && plugin.dir === repoRoot);
    expect(builtin.map((plugin) => plugin.name)).toContain('children');
    for (const plugin of builtin) {
      const source = path.join(repoRoot, path.relative(path.join(repoRoot, 'dist'), plugin.entry)).replace(/\.js$/, '.ts');
      const definition = ((await import(source)) as { default: { provides?: { tools?: string[] } } }).default;
      expect(plugin.provides.tools, `package.json "provides.tools" of ${plugin.name}`).toEqual(definition.provides?.tools ?? []);
    }
  });

  it('lists installed extensions where the gateway would find them, each id once (the project first), without importing them', () => {
    const project = tempDir();
    const userDir = tempDir();
    const extension = (version: string) => ({ 'package.json': { name: 'xdog-ext-probe', version, xdog: { extension: './index.js' } }, 'index.js': 'throw new Error("imported")' });
    writeTree(path.join(project, 'node_modules', 'xdog-ext-probe'), extension('1.0.0'));
    writeTree(path.join(userDir, 'node_modules', 'xdog-ext-probe'), extension('2.0.0'));
    writeTree(path.join(userDir, 'node_modules', '@team', 'other-ext'), { 'package.json': { name: '@team/other-ext', version: '0.1.0', xdog: { extension: './main.js' } } });
    const listed = discoverExtensions({ cwd: project, installRoot: null, userDir });
    expect(listed.map((item) => [item.id, item.version, item.source])).toEqual([
      ['xdog-ext-probe', '1.0.0', 'project'],
      ['@team/other-ext', '0.1.0', 'user'],
    ]);
    expect(discoverPlugins({ cwd: project, installRoot: null, userDir, cacheFile: null })).toEqual([]);
  });
});

