import { describe, expect, it } from 'vitest';
import { ToolRepo, type AgentTool } from '../../../core/index.js';
import { recordingTool, scripted } from './helpers.js';

const tool = (name: string): AgentTool => recordingTool(name).tool;

describe('ToolRepo', () => {
  it('scenario 19: conflicts fail, an old receipt never removes a replacement, a missing get raises', () => {
    const repo = new ToolRepo();
    const first = tool('search');
    const receipt = repo.register(first);
    expect(() => repo.register(tool('search'))).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    repo.unregister('search');
    const replacement = tool('search');
    repo.register(replacement);
    receipt.close();
    expect(repo.get('search')).toBe(replacement);
    expect(() => repo.get('missing')).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('registers atomically: one conflict registers nothing', () => {
    const repo = new ToolRepo([tool('a')]);
    expect(() => repo.register(tool('b'), tool('a'))).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    expect([...repo.names()]).toEqual(['a']);
    expect(() => repo.register(tool('c'), tool('c'))).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    expect(repo.has('c')).toBe(false);
  });

  it('select keeps the actual objects; merge unions them and fails on different objects under one name', () => {
    const a = tool('a');
    const b = tool('b');
    const repo = new ToolRepo([a, b]);
    const selected = repo.select(['b']);
    expect(selected.tools).toEqual([b]);
    expect(selected.get('b')).toBe(b);
    expect(() => repo.select(['zz'])).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(repo.merge(selected).tools).toEqual([a, b]);
    expect(() => repo.merge(new ToolRepo([tool('a')]))).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
  });

  it('a receipt closes only its own bindings, once', () => {
    const repo = new ToolRepo();
    const receipt = repo.register(tool('a'), tool('b'));
    repo.register(tool('c'));
    receipt.close();
    receipt.close();
    expect([...repo.names()]).toEqual(['c']);
  });

  it('publish sets the tools of an idle agent without growing its active selection', () => {
    const { agent } = scripted([], { tools: [tool('a')] });
    agent.setActiveTools(['a'], { expectedRevision: agent.toolSelectionRevision });
    const repo = new ToolRepo([agent.localTools[0]!, tool('b')]);
    repo.publish(agent);
    expect(agent.localTools.map((entry) => entry.name)).toEqual(['a', 'b']);
    expect(agent.activeTools.map((entry) => entry.name)).toEqual(['a']);
  });

  it('rejects malformed tools', () => {
    expect(() => new ToolRepo([{ name: 'bad name!', description: '', parameters: {}, execute: async () => ({ content: [] }) }])).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
  });
});
