import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverPlugins, ErrorCodes } from '../../core/index.js';
import { tempDir, writeTree } from '../support/temp.js';

const plugin = (name: string, tool: string) => ({ name, version: '1.0.0', xdog: { entry: './i.js', provides: { tools: [tool] } } });

/** Moves the modification times of node_modules and its scope folders into the past, as if installed a minute ago. */
function settle(nodeModules: string): void {
  const past = new Date(Date.now() - 60_000);
  for (const name of fs.readdirSync(nodeModules)) {
    if (name.startsWith('@')) fs.utimesSync(path.join(nodeModules, name), past, past);
  }
  fs.utimesSync(nodeModules, past, past);
}

/** A project whose node_modules holds one plugin among plain packages, settled; plus its own cache file. */
function project(): { cwd: string; nodeModules: string; options: Parameters<typeof discoverPlugins>[0] } {
  const cwd = tempDir();
  writeTree(cwd, {
    'node_modules/left-pad/package.json': { name: 'left-pad', version: '1.0.0' },
    'node_modules/@acme/util/package.json': { name: '@acme/util', version: '2.0.0' },
    'node_modules/@acme/xdog-tools/package.json': plugin('@acme/xdog-tools', 't'),
  });
  const nodeModules = path.join(cwd, 'node_modules');
  settle(nodeModules);
  return { cwd, nodeModules, options: { cwd, installRoot: null, userDir: null, cacheFile: path.join(tempDir(), 'discovery.json') } };
}

const names = (options: Parameters<typeof discoverPlugins>[0]) => discoverPlugins(options).map((found) => found.name);

describe('discovery cache', () => {
  it('once a node_modules folder is known, reads only the packages that declare plugins', () => {
    const { nodeModules, options } = project();
    expect(names(options)).toEqual(['@acme/xdog-tools']);
    // Rewritten in place (npm never does; node_modules is untouched) to clash with the plugin:
    // a full scan fails on it, the cached one never opens it.
    fs.writeFileSync(path.join(nodeModules, 'left-pad/package.json'), JSON.stringify(plugin('left-pad', 't')));
    expect(names(options)).toEqual(['@acme/xdog-tools']);
    expect(() => names({ ...options, cacheFile: null })).toThrowError(expect.objectContaining({ code: ErrorCodes.PLUGIN_CONFLICT }));
  });

  it('always reads the manifests of known plugins fresh', () => {
    const { nodeModules, options } = project();
    names(options);
    fs.writeFileSync(path.join(nodeModules, '@acme/xdog-tools/package.json'), JSON.stringify(plugin('@acme/xdog-tools', 'renamed')));
    expect(discoverPlugins(options)[0]?.provides.tools).toEqual(['renamed']);
  });

  it('sees a package added or removed (the folder changed), scoped ones included', () => {
    const { nodeModules, options } = project();
    names(options);
    writeTree(nodeModules, { 'zz-plugin/package.json': plugin('zz-plugin', 'z') });
    expect(names(options)).toEqual(['@acme/xdog-tools', 'zz-plugin']);
    settle(nodeModules);
    writeTree(nodeModules, { '@acme/more/package.json': plugin('@acme/more', 'm') });
    expect(names(options)).toEqual(['@acme/more', '@acme/xdog-tools', 'zz-plugin']);
    fs.rmSync(path.join(nodeModules, 'zz-plugin'), { recursive: true });
    expect(names(options)).toEqual(['@acme/more', '@acme/xdog-tools']);
  });

  it('always reads linked packages, which change without touching node_modules', () => {
    const { nodeModules, options } = project();
    const linked = tempDir();
    writeTree(linked, { 'package.json': { name: 'linked-dev', version: '0.0.1' } });
    fs.symlinkSync(linked, path.join(nodeModules, 'linked-dev'), 'dir');
    settle(nodeModules);
    expect(names(options)).toEqual(['@acme/xdog-tools']);
    fs.writeFileSync(path.join(linked, 'package.json'), JSON.stringify(plugin('linked-dev', 'l')));
    expect(names(options)).toEqual(['@acme/xdog-tools', 'linked-dev']);
  });

  it('does not trust a folder changed moments ago, nor a corrupt cache file', () => {
    const { nodeModules, options } = project();
    fs.utimesSync(nodeModules, new Date(), new Date());
    names(options);
    fs.writeFileSync(path.join(nodeModules, 'left-pad/package.json'), JSON.stringify(plugin('left-pad', 't')));
    expect(() => names(options)).toThrowError(expect.objectContaining({ code: ErrorCodes.PLUGIN_CONFLICT }));
    fs.writeFileSync(path.join(nodeModules, 'left-pad/package.json'), '{}');
    settle(nodeModules);
    fs.writeFileSync(options!.cacheFile!, '{"version": 1, "folders": "garbage"}');
    expect(names(options)).toEqual(['@acme/xdog-tools']);
    expect(JSON.parse(fs.readFileSync(options!.cacheFile!, 'utf8')).folders[nodeModules].plugins).toEqual([path.join(nodeModules, '@acme/xdog-tools')]);
  });
});
