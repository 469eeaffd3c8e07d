import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, SkillRepo, createSkillTool } from '../../../core/index.js';
import { drain, scriptedStream } from './scripted-stream.js';

let tmp: string;
let repo: SkillRepo;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-placement-'));
  for (const [slug, body] of [['style', 'STYLE-BODY: write short sentences.'], ['review', 'REVIEW-BODY: read the diff twice.']]) {
    fs.mkdirSync(path.join(tmp, slug));
    fs.writeFileSync(path.join(tmp, slug, 'SKILL.md'), `---\nname: ${slug}\ndescription: The ${slug} skill\n---\n${body}\n`);
  }
  repo = SkillRepo.empty().register({ directory: tmp, name: 'host' });
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('skills in the Agent (scenario 24)', () => {
  it('discovery puts no body in the prompt, skill load returns it as a tool result, unknown activation fails', async () => {
    const model = scriptedStream([{ toolCalls: [{ name: 'skill', arguments: { action: 'load', slug: 'review' } }] }, 'ok']);
    const agent = new Agent(model.streamFn, { model: 'test/m', systemPrompt: 'base' }, { tools: [createSkillTool(repo)], skills: repo });
    expect(agent.activeSkills).toEqual([]);
    await drain(agent.prompt('review my change'));
    expect(model.requests[0]!.systemPrompt).toBe('base');
    expect(JSON.stringify(model.requests[0])).not.toContain('REVIEW-BODY');
    const toolResult = agent.messages.find((message) => message.role === 'toolResult');
    expect(toolResult).toMatchObject({ toolName: 'skill', isError: false, content: [{ type: 'text', text: 'REVIEW-BODY: read the diff twice.' }] });
    expect(() => agent.setActiveSkills(['unknown'])).toThrow(/unknown skill "unknown"/);
    expect(agent.activeSkills).toEqual([]);
    await agent.close();
  });

  it('places session skills in the system prompt of every request', async () => {
    const model = scriptedStream(['one', 'two']);
    const agent = new Agent(model.streamFn, { model: 'test/m', systemPrompt: 'base' }, { skills: repo });
    agent.setActiveSkills(['style']);
    expect(agent.activeSkills).toEqual([{ slug: 'style', scope: 'session', state: 'active' }]);
    await drain(agent.prompt('a'));
    await drain(agent.prompt('b'));
    for (const request of model.requests) expect(request.systemPrompt).toMatch(/^base\n\n# Active skills\n\n<skill name="style">\nSTYLE-BODY/);
    expect(JSON.stringify(agent.messages)).not.toContain('STYLE-BODY');
    await agent.close();
  });

  it('puts a turn skill in the current run only and keeps it out of history', async () => {
    const model = scriptedStream([{ toolCalls: [{ name: 'noop', arguments: {} }] }, 'first done', 'second done']);
    const noop = { name: 'noop', description: 'does nothing', parameters: { type: 'object' }, execute: async () => ({ content: [{ type: 'text' as const, text: 'nothing' }] }) };
    const agent = new Agent(model.streamFn, { model: 'test/m' }, { skills: repo, tools: [noop] });
    agent.setActiveSkills(['review'], 'turn');
    expect(agent.activeSkills).toEqual([{ slug: 'review', scope: 'turn', state: 'pending' }]);
    await drain(agent.prompt('first'));
    // Both requests of the first run carry the turn skill, in the latest user message.
    expect(model.requests.slice(0, 2).every((request) => JSON.stringify(request.messages).includes('REVIEW-BODY'))).toBe(true);
    expect(agent.activeSkills).toEqual([]);
    expect(JSON.stringify(agent.messages)).not.toContain('REVIEW-BODY');
    await drain(agent.prompt('second'));
    expect(JSON.stringify(model.requests[2])).not.toContain('REVIEW-BODY');
    await agent.close();
  });

  it('consumes a turn skill when the run fails', async () => {
    const model = scriptedStream([{ error: 'provider down' }, 'fine']);
    const agent = new Agent(model.streamFn, { model: 'test/m' }, { skills: repo });
    agent.setActiveSkills(['review'], 'turn');
    const result = (await drain(agent.prompt('x'))) as { status: string };
    expect(result.status).toBe('error');
    expect(agent.activeSkills).toEqual([]);
    await drain(agent.prompt('y'));
    expect(JSON.stringify(model.requests[1])).not.toContain('REVIEW-BODY');
    await agent.close();
  });

  it('takes prepared session skills, and activation without a repo fails', () => {
    const model = scriptedStream([]);
    const prepared = new Agent(model.streamFn, { model: 'test/m' }, { skills: repo, preparedSkills: [repo.read('style')] });
    expect(prepared.activeSkills.map((skill) => skill.slug)).toEqual(['style']);
    const bare = new Agent(model.streamFn, { model: 'test/m' });
    expect(() => bare.setActiveSkills(['style'])).toThrow(/no skill repo/);
  });
});
