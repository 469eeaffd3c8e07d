import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CapabilitySet,
  SkillRepo,
  ToolRepo,
  XdogError,
  createKernel,
  openInstalledCapabilities,
  pluginsOfPackage,
  type CapabilityProvider,
  type Kernel,
} from '../../../core/index.js';
import { drain, scriptedStream } from '../skills/scripted-stream.js';
import { capabilityPlugin, textTool } from './helpers.js';

/** A capability that owns a resource (a counter standing in for a connection) and exposes it as a tool. */
function resourceCapability(log: string[]): CapabilityProvider {
  return {
    name: 'counter',
    open(context) {
      log.push(`open:${context.host.scope}:${context.host.id}`);
      let hits = 0;
      return {
        tools: [textTool('count', () => String(++hits))],
        close: () => void log.push(`close:${hits}`),
      };
    },
  };
}

let kernel: Kernel | undefined;
let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-caps-'));
});
afterEach(async () => {
  await kernel?.close();
  kernel = undefined;
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('CapabilitySet', () => {
  it('starts a resource once at open(), shares it between two agents, and releases it at close', async () => {
    const log: string[] = [];
    kernel = await createKernel({ plugins: [capabilityPlugin('counter-plugin', resourceCapability(log))] });
    const set = CapabilitySet.fromKernel(kernel, 'application').select(['counter']);
    expect(log).toEqual([]);
    const assembly = await set.open();
    expect(log).toEqual(['open:application:application']);

    const calls = [{ toolCalls: [{ name: 'count', arguments: {} }] }, 'ok'];
    const first = scriptedStream(calls);
    const second = scriptedStream(calls);
    const a = assembly.createAgent(first.streamFn, { config: { model: 'test/m' } });
    const b = assembly.createAgent(second.streamFn, { config: { model: 'test/m' } });
    await drain(a.prompt('count'));
    await drain(b.prompt('count'));
    const results = [a, b].map((agent) => agent.messages.find((m) => m.role === 'toolResult'));
    expect(results.map((r) => (r as { content: Array<{ text: string }> }).content[0]!.text)).toEqual(['1', '2']);
    expect(log).toEqual(['open:application:application']);

    await expect(assembly.close()).rejects.toThrow(/2 agent\(s\) created from it are still open/);
    await a.close();
    await b.close();
    await assembly.close();
    expect(log).toEqual(['open:application:application', 'close:2']);
    expect(() => assembly.createAgent(first.streamFn, { config: { model: 'test/m' } })).toThrow(/closed/);
  });

  it('fails on a tool name two sources contribute, naming both', async () => {
    const make = (name: string): CapabilityProvider => ({ name, open: () => ({ tools: [textTool('shared', () => name)] }) });
    kernel = await createKernel({ plugins: [capabilityPlugin('p-a', make('alpha')), capabilityPlugin('p-b', make('beta'))] });
    const assembly = await CapabilitySet.fromKernel(kernel, 'application').select(['alpha', 'beta']).open();
    const model = scriptedStream([]);
    expect(() => assembly.createAgent(model.streamFn, { config: { model: 'm' } })).toThrow(/tool "shared" is contributed by both capability "alpha" and capability "beta"/);
    await assembly.close();

    const single = await CapabilitySet.fromKernel(kernel, 'application', { toolRepo: new ToolRepo([textTool('shared', () => 'host')]) }).select(['alpha']).open();
    expect(() => single.composeTools()).toThrow(/contributed by both the set's tool repo and capability "alpha"/);
    await single.close();
  });

  it('adds host repos by union and cannot remove contributions', async () => {
    const skillsDir = path.join(tmp, 'skills');
    fs.mkdirSync(path.join(skillsDir, 'notes'), { recursive: true });
    fs.writeFileSync(path.join(skillsDir, 'notes', 'SKILL.md'), '---\nname: notes\ndescription: Take notes\n---\nWrite things down.\n');
    kernel = await createKernel({ plugins: [capabilityPlugin('counter-plugin', resourceCapability([]))] });
    const assembly = await CapabilitySet.fromKernel(kernel, 'application', { toolRepo: new ToolRepo([textTool('host_a', () => 'a')]) }).select(['counter']).open();
    const model = scriptedStream([]);
    const agent = assembly.createAgent(model.streamFn, {
      config: { model: 'm' },
      toolRepo: new ToolRepo([]).select([]),
      skillRepo: SkillRepo.empty().register({ directory: skillsDir, name: 'host' }),
    });
    expect(agent.localTools.map((tool) => tool.name).sort()).toEqual(['count', 'host_a', 'skill']);
    expect(agent.skills?.slugs()).toEqual(['notes']);
    expect(agent.activeSkills).toEqual([]);
    await agent.close();
    await assembly.close();
  });

  it('needs the owner port for session and group scopes, and honours provider scopes', async () => {
    const appOnly: CapabilityProvider = { name: 'apponly', scopes: ['application'], open: () => ({}) };
    kernel = await createKernel({ plugins: [capabilityPlugin('counter-plugin', resourceCapability([])), capabilityPlugin('app-plugin', appOnly)] });
    const session = CapabilitySet.fromKernel(kernel, 'session').select(['counter']);
    await expect(session.open()).rejects.toThrow(/session-scope capability set needs its owner's port/);
    await expect(session.open({ scope: 'group', id: 'g1' })).rejects.toThrow(/cannot open for a group port/);
    const opened = await session.open({ scope: 'session', id: 's1' });
    await opened.close();
    await expect(CapabilitySet.fromKernel(kernel, 'group').select(['apponly']).open({ scope: 'group', id: 'g' })).rejects.toThrow(/cannot be opened in group scope/);
    expect(() => CapabilitySet.fromKernel(kernel!, 'application').select(['nope'])).toThrow(XdogError);
  });

  it('discovers installed providers inertly and imports only the selected ones', async () => {
    const makePackage = (name: string, capability: string, body: string) => {
      const dir = path.join(tmp, 'node_modules', name);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', xdog: { entry: './index.js', provides: { capabilities: [capability] } } }));
      fs.writeFileSync(path.join(dir, 'index.js'), body);
      return dir;
    };
    // A plain-JS package imports the compiled xdog (dist/, built by the global setup); tokens are Symbol.for, so they match.
    const coreUrl = new URL('../../../dist/core/index.js', import.meta.url).href;
    makePackage('cap-broken', 'broken', 'throw new Error("imported although not selected");\n');
    makePackage('cap-hello', 'hello', `
      import { definePlugin, ContainerModule, CapabilityContribution } from ${JSON.stringify(coreUrl)};
      const provider = { name: 'hello', open: () => ({ tools: [{ name: 'hello', description: 'hi', parameters: { type: 'object' }, execute: async () => ({ content: [{ type: 'text', text: 'hi' }] }) }] }) };
      export default definePlugin({ name: 'cap-hello', provides: { capabilities: ['hello'] }, module: new ContainerModule(({ bind }) => { bind(CapabilityContribution).toConstantValue(provider); }) });
    `);
    const plugins = [...pluginsOfPackage(path.join(tmp, 'node_modules', 'cap-broken'), 'project'), ...pluginsOfPackage(path.join(tmp, 'node_modules', 'cap-hello'), 'project')];
    const set = new CapabilitySet('application', { plugins });
    expect(set.available().map((info) => info.name).sort()).toEqual(['broken', 'hello']);
    const assembly = await set.select(['hello']).open();
    expect(assembly.composeTools().map((tool) => tool.name)).toEqual(['hello']);
    await assembly.close();
    await expect(set.select(['broken']).open()).rejects.toThrow(/imported although not selected/);
  });

  it('openInstalledCapabilities opens every capability the kernel provides, for the given host', async () => {
    const log: string[] = [];
    const other: CapabilityProvider = { name: 'other', open: () => ({ tools: [textTool('other_tool', () => 'x')] }) };
    kernel = await createKernel({ plugins: [capabilityPlugin('counter-plugin', resourceCapability(log)), capabilityPlugin('other-plugin', other)] });
    const assembly = await openInstalledCapabilities(kernel, { scope: 'session', id: 's9' });
    expect(assembly.capabilities).toEqual(['counter', 'other']);
    expect(log).toEqual(['open:session:s9']);
    expect(assembly.composeTools().map((tool) => tool.name).sort()).toEqual(['count', 'other_tool']);
    await assembly.close();
  });
});
