import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pluginsOfPackage } from '../../core/discovery.js';
import { checkDeclaredCommands, commandIdsOf, syncCommandPlugins } from '../../core/plugin-commands.js';
import { tempDir, writeTree } from '../support/temp.js';

function commandPackage(declared: string[]): string {
  const dir = tempDir();
  writeTree(dir, {
    'package.json': { name: 'xdog-plugin-cmds', version: '1.0.0', xdog: { entry: './index.js', provides: { commands: declared } }, oclif: { commands: './commands' } },
    'index.js': '',
    'commands/hello/greet.js': 'export default class {}',
    'commands/hello/index.js': 'export default class {}',
  });
  return dir;
}

describe('plugin CLI commands', () => {
  it('reads command ids from the oclif commands folder', () => {
    expect(commandIdsOf(commandPackage([]))).toEqual(['hello', 'hello greet']);
  });

  it('refuses a command the package does not declare, and a declared one it does not ship, naming the package', () => {
    const undeclared = commandPackage(['hello']);
    expect(() => checkDeclaredCommands(undeclared, pluginsOfPackage(undeclared, 'user'))).toThrow(/xdog-plugin-cmds adds command "hello greet" but does not declare it in provides\.commands/);
    const missing = commandPackage(['hello', 'hello greet', 'hello wave']);
    expect(() => checkDeclaredCommands(missing, pluginsOfPackage(missing, 'user'))).toThrow(/xdog-plugin-cmds declares command "hello wave" but its oclif commands folder has no module for it/);
    const exact = commandPackage(['hello', 'hello greet']);
    expect(() => checkDeclaredCommands(exact, pluginsOfPackage(exact, 'user'))).not.toThrow();
  });

  it('links exactly the installed packages with commands into oclif\'s user plugin file and keeps other entries', () => {
    const data = tempDir();
    const nodeModules = path.join(data, 'plugins/node_modules');
    const file = path.join(data, 'package.json');
    writeTree(data, { 'package.json': { private: true, oclif: { plugins: [{ type: 'user', name: 'someone-else' }, { type: 'link', name: 'gone', root: path.join(nodeModules, 'gone') }] } } });
    const pkg = path.join(nodeModules, 'xdog-plugin-cmds');
    fs.mkdirSync(nodeModules, { recursive: true });
    fs.cpSync(commandPackage([]), pkg, { recursive: true });
    syncCommandPlugins(file, nodeModules, [pkg]);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).oclif.plugins).toEqual([{ type: 'user', name: 'someone-else' }, { type: 'link', name: 'xdog-plugin-cmds', root: pkg }]);
    syncCommandPlugins(file, nodeModules, []);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).oclif.plugins).toEqual([{ type: 'user', name: 'someone-else' }]);
  });
});
