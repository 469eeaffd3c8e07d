/**
 * I23: the plan plugin's packaged `plan` skill, found by discovery like any
 * packaged skill: listed by the read-only skill tool, loadable with its
 * planning instructions, and never active by default (an agent given the
 * packaged skills has none active until the host activates one).
 */
import { describe, expect, it } from 'vitest';
import { Agent, SkillRepo, createSkillTool, type ModelStreamFn } from '../../../core/index.js';
import { discoverPlugins } from '../../../core/discovery.js';

describe('the packaged plan skill (I23)', () => {
  const plugins = discoverPlugins({ cacheFile: null, userDir: null });

  it('is listed and loadable through the skill tool, with planning instructions', async () => {
    const tool = createSkillTool(SkillRepo.fromPackaged(plugins));
    const signal = new AbortController().signal;
    const context = { toolCallId: 'c1', signal, onUpdate: () => {}, toolCtx: {} };
    const listed = await tool.execute({ action: 'list' }, context);
    expect(listed.details).toMatchObject({ action: 'list', skills: expect.arrayContaining([expect.objectContaining({ slug: 'plan', source: 'plugin:plan' })]) });
    const loaded = await tool.execute({ action: 'load', slug: 'plan' }, context);
    const text = loaded.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    expect(text).toContain('Plan first, then act');
    expect(text).toContain('update_plan');
  });

  it('is not active by default', async () => {
    // Never called: no prompt is sent.
    const streamFn = (() => {
      throw new Error('no model call expected');
    }) as unknown as ModelStreamFn;
    const agent = new Agent(streamFn, { model: 'faux/demo' }, { skills: SkillRepo.fromPackaged(plugins) });
    expect(agent.skills?.list().map((skill) => skill.slug)).toContain('plan');
    expect(agent.activeSkills).toEqual([]);
    await agent.close();
  });
});
