import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  Agent,
  CapabilitySet,
  ErrorCodes,
  SkillPlacement,
  SkillRepo,
  ToolRepo,
  createKernel,
  decodeSnapshotMessages,
  encodeSnapshotMessages,
  type CapabilityProvider,
  type Kernel,
} from '../../../core/index.js';
import { drain, scriptedStream } from '../skills/scripted-stream.js';
import { capabilityPlugin, textTool, writeSkill } from './helpers.js';

let kernel: Kernel | undefined;
let tmp: string;
let hostDir: string;
let notesDir: string;
/** What the notes capability asks agents to start with; tests change it between "runs of the program". */
let defaults: string[];

const notes = (): CapabilityProvider => ({
  name: 'notes',
  open: () => ({
    tools: [textTool('note', () => 'noted')],
    skills: SkillRepo.empty().register({ directory: notesDir, name: 'notes-cap' }),
    sessionSkills: defaults,
  }),
});

beforeEach(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-restore-'));
  hostDir = path.join(tmp, 'host');
  writeSkill(hostDir, 'style', 'STYLE-BODY');
  writeSkill(hostDir, 'review', 'REVIEW-BODY');
  notesDir = writeSkill(path.join(tmp, 'notes'), 'notes', 'NOTES-BODY');
  defaults = [];
  kernel = await createKernel({ plugins: [capabilityPlugin('notes-plugin', notes())] });
});
afterEach(async () => {
  await kernel?.close();
  kernel = undefined;
  fs.rmSync(tmp, { recursive: true, force: true });
});

const readSkills = (slugs: string[]) => SkillPlacement.read(hostSkills().merge(SkillRepo.empty().register({ directory: notesDir, name: 'notes-cap' })), slugs);
const hostSkills = () => SkillRepo.empty().register({ directory: hostDir, name: 'host' });
const openSet = (skillRepo?: SkillRepo) => CapabilitySet.fromKernel(kernel!, 'application', { skillRepo }).select(['notes']).open();

/** A conversation with one tool call, session skill "style" and pending turn skill "review", dumped. */
async function savedConversation() {
  const assembly = await openSet(hostSkills());
  const model = scriptedStream([{ toolCalls: [{ name: 'note', arguments: {} }] }, 'saved']);
  const agent = assembly.createAgent(model.streamFn, { config: { model: 'test/old' } });
  await drain(agent.prompt('take a note'));
  agent.setActiveSkills(['style'], 'session');
  agent.setActiveSkills(['review'], 'turn');
  const snapshot = agent.dump();
  const metadata = agent.dumpMetadata();
  const fragments = encodeSnapshotMessages(agent.messages);
  const messages = structuredClone(agent.messages);
  await agent.close();
  await assembly.close();
  return { snapshot, metadata, fragments, messages };
}

describe('skill lifecycle in snapshots (native Agent)', () => {
  it('saves session and pending turn skills by slug and digest, and restores them only against the current index', async () => {
    const { snapshot } = await savedConversation();
    expect(snapshot.skills).toEqual({
      session: [{ slug: 'style', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }],
      pending: [{ slug: 'review', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }],
    });
    expect(JSON.stringify(snapshot)).not.toContain('STYLE-BODY');

    const model = scriptedStream(['next']);
    const agent = new Agent(model.streamFn, { model: 'test/old' }, { skills: hostSkills() });
    agent.restore(snapshot);
    expect(agent.activeSkills).toEqual([
      { slug: 'style', scope: 'session', state: 'active' },
      { slug: 'review', scope: 'turn', state: 'pending' },
    ]);
    // The pending turn skill rides along in the next run only, then it is consumed.
    await drain(agent.prompt('go on'));
    expect(model.requests[0]!.systemPrompt).toContain('STYLE-BODY');
    expect(JSON.stringify(model.requests[0]!.messages)).toContain('REVIEW-BODY');
    expect(agent.activeSkills).toEqual([{ slug: 'style', scope: 'session', state: 'active' }]);
    // A consumed turn skill is not saved again.
    expect(agent.dump().skills?.pending).toEqual([]);
    await agent.close();

    // A snapshot from an agent without a skill index carries no bindings and leaves active skills alone.
    const bare = new Agent(scriptedStream([]).streamFn, { model: 'test/old' });
    expect(bare.dump().skills).toBeUndefined();
    await bare.close();
  });

  it('fails closed, changing nothing, on a skill the index lacks or whose body changed', async () => {
    const { snapshot } = await savedConversation();
    const agent = new Agent(scriptedStream([]).streamFn, { model: 'test/old' }, { skills: SkillRepo.empty().register({ directory: notesDir, name: 'n' }) });
    agent.setActiveSkills(['notes']);
    expect(() => agent.restore(snapshot)).toThrow(/the snapshot's session skill "style" is not in this agent's skill index/);
    expect(agent.messages).toEqual([]);
    expect(agent.activeSkills).toEqual([{ slug: 'notes', scope: 'session', state: 'active' }]);
    await agent.close();

    writeSkill(hostDir, 'review', 'REVIEW-BODY, edited');
    const edited = new Agent(scriptedStream([]).streamFn, { model: 'test/old' }, { skills: hostSkills() });
    expect(() => edited.restore(snapshot)).toThrow(/the snapshot's pending turn skill "review" has changed since it was saved/);
    expect(edited.messages).toEqual([]);
    expect(edited.activeSkills).toEqual([]);
    await edited.close();
  });
});

describe('CapabilityAssembly.restoreAgent', () => {
  it('builds the agent from current capabilities, keeps the saved lifecycle and adds missing default session skills', async () => {
    const { snapshot, messages } = await savedConversation();
    defaults = ['notes']; // the capability now asks for a default session skill
    const assembly = await openSet(hostSkills());
    const model = scriptedStream(['after restore']);
    const agent = await assembly.restoreAgent(model.streamFn, snapshot, {
      config: { model: 'test/new' },
      allowedModels: ['test/old', 'test/new'],
      toolRepo: new ToolRepo([textTool('host_now', () => 'now')]),
    });
    expect(model.requests).toHaveLength(0);
    expect(agent.messages).toEqual(messages);
    expect(agent.config.model).toBe('test/old');
    expect(agent.localTools.map((tool) => tool.name).sort()).toEqual(['host_now', 'note', 'skill']);
    expect(agent.activeSkills).toEqual([
      { slug: 'style', scope: 'session', state: 'active' },
      { slug: 'notes', scope: 'session', state: 'active' },
      { slug: 'review', scope: 'turn', state: 'pending' },
    ]);
    await drain(agent.prompt('continue'));
    expect(model.requests[0]!.systemPrompt).toContain('NOTES-BODY');
    expect(JSON.stringify(model.requests[0]!.messages)).toContain('REVIEW-BODY');

    // The restored agent belongs to the assembly: agents before sets.
    await expect(assembly.close()).rejects.toThrow(/still open/);
    await agent.close();
    await assembly.close();
  });

  it('fails closed on a skill the assembly does not provide or a model the host did not allow, leaving no agent open', async () => {
    const { snapshot } = await savedConversation();
    const assembly = await openSet(); // no host skill repo: only the capability's "notes"
    const model = scriptedStream([]);
    const missing = assembly.restoreAgent(model.streamFn, snapshot, { config: { model: 'test/old' } });
    await expect(missing).rejects.toThrow(/cannot restore into this capability assembly \(capabilities: notes\): the snapshot's session skill "style" is not in this agent's skill index/);
    await expect(missing).rejects.toMatchObject({ code: ErrorCodes.SNAPSHOT_INVALID, hint: expect.stringMatching(/saved names grant nothing/) });

    const withSkills = await openSet(hostSkills());
    // allowedModels defaults to the configured model only.
    await expect(withSkills.restoreAgent(model.streamFn, snapshot, { config: { model: 'test/new' } })).rejects.toThrow(
      /the snapshot's model "test\/old" is not among the allowed models \(test\/new\)/,
    );
    // The failed restores closed their agents, so both sets close.
    await assembly.close();
    await withSkills.close();
    expect(model.requests).toHaveLength(0);
  });

  it('restores split snapshots with the same checks (restoreAgentParts)', async () => {
    const { metadata, fragments, messages } = await savedConversation();
    const assembly = await openSet(hostSkills());
    const model = scriptedStream([]);
    const agent = await assembly.restoreAgentParts(model.streamFn, metadata, decodeSnapshotMessages(fragments), { config: { model: 'test/old' } });
    expect(agent.messages).toEqual(messages);
    expect(agent.activeSkills.map((skill) => `${skill.scope}:${skill.slug}:${skill.state}`)).toEqual(['session:style:active', 'turn:review:pending']);
    await agent.close();

    const bare = await openSet();
    await expect(bare.restoreAgentParts(model.streamFn, metadata, decodeSnapshotMessages(fragments), { config: { model: 'test/old' } })).rejects.toThrow(
      /skill "style" is not in this agent's skill index/,
    );
    await expect(assembly.restoreAgentParts(model.streamFn, metadata, decodeSnapshotMessages(fragments).slice(1), { config: { model: 'test/old' } })).rejects.toThrow(
      /the metadata names \d+ messages but \d+ were given/,
    );
    await bare.close();
    await assembly.close();
  });

  it('starts new agents with the default session skills, beside the host-prepared ones', async () => {
    defaults = ['notes'];
    const assembly = await openSet(hostSkills());
    const model = scriptedStream([]);
    const plain = assembly.createAgent(model.streamFn, { config: { model: 'm' } });
    expect(plain.activeSkills).toEqual([{ slug: 'notes', scope: 'session', state: 'active' }]);
    const prepared = assembly.createAgent(model.streamFn, { config: { model: 'm' }, preparedSkills: readSkills(['style', 'notes']) });
    expect(prepared.activeSkills.map((skill) => skill.slug)).toEqual(['style', 'notes']);
    await plain.close();
    await prepared.close();
    await assembly.close();
  });

  it('refuses a capability whose default session skill it does not contribute, closing what opened before it', async () => {
    const closed: string[] = [];
    const first: CapabilityProvider = { name: 'first', open: () => ({ close: () => void closed.push('first') }) };
    const broken: CapabilityProvider = { name: 'broken', open: () => ({ sessionSkills: ['ghost'], close: () => void closed.push('broken') }) };
    const own = await createKernel({ plugins: [capabilityPlugin('first-plugin', first), capabilityPlugin('broken-plugin', broken)] });
    await expect(CapabilitySet.fromKernel(own, 'application').select(['first', 'broken']).open()).rejects.toMatchObject({
      code: ErrorCodes.PLUGIN_INVALID,
      message: expect.stringMatching(/capability "broken" names session skill "ghost" but contributes no skill of that name/),
    });
    expect(closed).toEqual(['broken', 'first']);
    await own.close();
  });
});
