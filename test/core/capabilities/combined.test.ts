import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, CapabilityAssembly, CapabilitySet, SkillRepo, ToolRepo, createKernel, type CapabilityProvider, type Kernel } from '../../../core/index.js';
import { drain, scriptedStream } from '../skills/scripted-stream.js';
import { capabilityPlugin, textTool, writeSkill } from './helpers.js';

let kernel: Kernel | undefined;
let tmp: string;
const log: string[] = [];

/** A capability owning a counter (a stand-in for a connection), opened once per set. */
const counter: CapabilityProvider = {
  name: 'counter',
  open(context) {
    log.push(`open counter:${context.host.scope}`);
    let hits = 0;
    return { tools: [textTool('count', () => String(++hits))], close: () => void log.push(`close counter:${hits}`) };
  },
};

/** A session-only capability contributing a tool and a skill. */
function notes(skillsDir: string): CapabilityProvider {
  return {
    name: 'notes',
    scopes: ['session'],
    open(context) {
      log.push(`open notes:${context.host.id}`);
      return {
        tools: [textTool('note', () => `noted for ${context.host.id}`)],
        skills: SkillRepo.empty().register({ directory: skillsDir, name: 'notes-cap' }),
        close: () => void log.push(`close notes:${context.host.id}`),
      };
    },
  };
}

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-combined-'));
  log.length = 0;
});
afterEach(async () => {
  await kernel?.close();
  kernel = undefined;
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function openBoth() {
  const notesDir = writeSkill(path.join(tmp, 'notes-skills'), 'notes', 'NOTES-BODY');
  const hostDir = writeSkill(path.join(tmp, 'host-skills'), 'style', 'STYLE-BODY');
  kernel = await createKernel({ plugins: [capabilityPlugin('counter-plugin', counter), capabilityPlugin('notes-plugin', notes(notesDir))] });
  const app = await CapabilitySet.fromKernel(kernel, 'application', {
    toolRepo: new ToolRepo([textTool('host_time', () => 'noon')]),
    skillRepo: SkillRepo.empty().register({ directory: hostDir, name: 'host' }),
  })
    .select(['counter'])
    .open();
  const session = await CapabilitySet.fromKernel(kernel, 'session').select(['notes']).open({ scope: 'session', id: 's1' });
  return { app, session };
}

describe('CapabilityAssembly.combine', () => {
  it('gives agents the additive union of an application set and a session set', async () => {
    const { app, session } = await openBoth();
    const combined = CapabilityAssembly.combine(app, session);
    expect(combined.capabilities).toEqual(['counter', 'notes']);
    expect(combined.composeSkills().slugs().sort()).toEqual(['notes', 'style']);
    expect(combined.composeTools().map((tool) => tool.name).sort()).toEqual(['count', 'host_time', 'note', 'skill']);

    const model = scriptedStream([{ toolCalls: [{ name: 'count', arguments: {} }, { name: 'note', arguments: {} }] }, 'ok']);
    const agent = combined.createAgent(model.streamFn, { config: { model: 'test/m' }, toolRepo: new ToolRepo([textTool('extra', () => 'x')]) });
    expect(agent.localTools.map((tool) => tool.name).sort()).toEqual(['count', 'extra', 'host_time', 'note', 'skill']);
    expect(agent.skills?.slugs().sort()).toEqual(['notes', 'style']);
    expect(agent.activeSkills).toEqual([]);
    await drain(agent.prompt('use both'));
    const results = agent.messages.filter((message) => message.role === 'toolResult').map((message) => (message.content[0] as { text: string }).text);
    expect(results).toEqual(['1', 'noted for s1']);
    // Each set opened its capability once; combining started nothing.
    expect(log).toEqual(['open counter:application', 'open notes:s1']);

    // An agent built elsewhere gets the same union.
    const outside = new Agent(model.streamFn, { model: 'test/m' });
    combined.publishTools(outside);
    expect(outside.localTools.map((tool) => tool.name).sort()).toEqual(['count', 'host_time', 'note', 'skill']);
    await outside.close();

    await agent.close();
    await combined.close();
    await session.close();
    await app.close();
    expect(log).toEqual(['open counter:application', 'open notes:s1', 'close notes:s1', 'close counter:1']);
  });

  it('fails on a name two sets contribute, naming both sources', async () => {
    const alpha: CapabilityProvider = { name: 'alpha', open: (context) => ({ tools: [textTool('shared', () => context.host.id)] }) };
    kernel = await createKernel({ plugins: [capabilityPlugin('alpha-plugin', alpha)] });
    const app = await CapabilitySet.fromKernel(kernel, 'application').select(['alpha']).open();
    const session = await CapabilitySet.fromKernel(kernel, 'session').select(['alpha']).open({ scope: 'session', id: 's7' });
    const combined = CapabilityAssembly.combine(app, session);
    const model = scriptedStream([]);
    expect(() => combined.createAgent(model.streamFn, { config: { model: 'm' } })).toThrow(
      /tool "shared" is contributed by both capability "alpha" \(the application set\) and capability "alpha" \(the session set "s7"\)/,
    );

    // Skills too: two sets registering different definitions of one slug.
    const one = writeSkill(path.join(tmp, 'one'), 'plan', 'ONE');
    const two = writeSkill(path.join(tmp, 'two'), 'plan', 'TWO');
    const left = await CapabilitySet.fromKernel(kernel, 'application', { skillRepo: SkillRepo.empty().register({ directory: one, name: 'left' }) }).open();
    const right = await CapabilitySet.fromKernel(kernel, 'application', { skillRepo: SkillRepo.empty().register({ directory: two, name: 'right' }) }).open();
    expect(() => CapabilityAssembly.combine(left, right).composeSkills()).toThrow(/skill "plan" is defined twice: by left .* and by right/);

    // The same host repo given to two sets is one source, not a conflict.
    const hostTools = new ToolRepo([textTool('host_only', () => 'h')]);
    const a = await CapabilitySet.fromKernel(kernel, 'application', { toolRepo: hostTools }).open();
    const b = await CapabilitySet.fromKernel(kernel, 'session', { toolRepo: hostTools }).open({ scope: 'session', id: 's8' });
    expect(CapabilityAssembly.combine(a, b).composeTools().map((tool) => tool.name)).toEqual(['host_only']);
    for (const assembly of [app, session, left, right, a, b]) await assembly.close();
  });

  it('keeps agents-before-sets: no set closes while an agent of the combination is open', async () => {
    const { app, session } = await openBoth();
    const combined = CapabilityAssembly.combine(app, session);
    const model = scriptedStream([]);
    const agent = combined.createAgent(model.streamFn, { config: { model: 'm' } });

    await expect(app.close()).rejects.toThrow(/1 agent\(s\) created from it are still open/);
    await expect(session.close()).rejects.toThrow(/1 agent\(s\) created from it are still open/);
    await expect(combined.close()).rejects.toThrow(/1 agent\(s\) created from it are still open/);
    expect(app.isClosed || session.isClosed).toBe(false);

    await agent.close();
    await combined.close();
    // The combination owns no set: both are still open and usable.
    expect(log).toEqual(['open counter:application', 'open notes:s1']);
    const own = session.createAgent(model.streamFn, { config: { model: 'm' } });
    await own.close();
    expect(() => combined.createAgent(model.streamFn, { config: { model: 'm' } })).toThrow(/the capability set is closed/);

    // A combination over a set closed later refuses new agents; combining a closed set fails.
    const again = CapabilityAssembly.combine(app, session);
    await session.close();
    expect(() => again.createAgent(model.streamFn, { config: { model: 'm' } })).toThrow(/the session set "s1", one of the combined sets, is closed/);
    expect(() => CapabilityAssembly.combine(app, session)).toThrow(/the capability set is closed/);
    expect(() => CapabilityAssembly.combine()).toThrow(/needs at least one opened set/);
    await app.close();
    expect(log.at(-1)).toBe('close counter:0');
  });

  it('flattens nested combinations and counts a set once', async () => {
    const { app, session } = await openBoth();
    const nested = CapabilityAssembly.combine(CapabilityAssembly.combine(app, session), app);
    expect(nested.capabilities).toEqual(['counter', 'notes']);
    expect(nested.composeTools().map((tool) => tool.name).sort()).toEqual(['count', 'host_time', 'note', 'skill']);
    await session.close();
    await app.close();
  });
});
