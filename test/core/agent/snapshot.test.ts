import { describe, expect, it } from 'vitest';
import { decodeSnapshotMessages, encodeSnapshotMessages, messagesDigest } from '../../../core/index.js';
import { recordingTool, scripted } from './helpers.js';

describe('snapshots', () => {
  it('scenario 14: dump at idle, restore on a fresh agent: same messages, zero model and tool calls', async () => {
    const counter = recordingTool('t');
    const source = scripted([{ toolCalls: [{ name: 't', arguments: { n: 1 } }] }, { text: 'done', usage: { input: 7, output: 3 } }], { tools: [counter.tool] });
    await source.agent.prompt('go').result();
    const snapshot = JSON.parse(JSON.stringify(source.agent.dump()));
    const fresh = scripted([], { tools: [counter.tool] });
    fresh.agent.restore(snapshot, { allowedModels: ['faux/test'] });
    expect(fresh.agent.messages).toEqual(source.agent.messages);
    expect(fresh.agent.usage).toEqual(source.agent.usage);
    expect(fresh.model.callCount).toBe(0);
    expect(counter.calls).toHaveLength(1);
  });

  it('scenario 14: dump mid-run fails, and a model outside allowedModels fails restore', async () => {
    const { agent } = scripted([{ text: 'slow' }]);
    const stream = agent.prompt('go');
    expect(() => agent.dump()).toThrow(expect.objectContaining({ code: 'INVALID_STATE' }));
    await stream.result();
    const snapshot = agent.dump();
    const other = scripted([]);
    other.agent.setModel('faux/other');
    expect(() => other.agent.restore(snapshot)).toThrow(expect.objectContaining({ code: 'SNAPSHOT_INVALID' }));
    expect(() => other.agent.restore(snapshot, { allowedModels: ['faux/elsewhere'] })).toThrow(expect.objectContaining({ code: 'SNAPSHOT_INVALID' }));
    expect(other.agent.messages).toEqual([]);
    other.agent.restore(snapshot, { allowedModels: ['faux/test'] });
    expect(other.agent.config.model).toBe('faux/test');
  });

  it('rejects corrupt snapshots atomically', async () => {
    const { agent } = scripted([{ text: 'kept' }]);
    await agent.prompt('hi').result();
    const before = agent.messages;
    const snapshot = agent.dump();
    expect(() => agent.restore({ ...snapshot, version: 99 })).toThrow(expect.objectContaining({ code: 'SNAPSHOT_INVALID' }));
    expect(() => agent.restore({ ...snapshot, messages: [{ role: 'wizard' }] })).toThrow(expect.objectContaining({ code: 'SNAPSHOT_INVALID' }));
    expect(() => agent.restore('{not json')).toThrow(expect.objectContaining({ code: 'SNAPSHOT_INVALID' }));
    expect(agent.messages).toEqual(before);
  });

  it('split snapshots round-trip through bounded fragments', async () => {
    const { agent } = scripted([{ toolCalls: [{ name: 't', arguments: {} }] }, { text: 'done' }], { tools: [recordingTool('t').tool] });
    await agent.prompt('go').result();
    const metadata = JSON.parse(JSON.stringify(agent.dumpMetadata()));
    const fragments = encodeSnapshotMessages(agent.messages);
    const fresh = scripted([]);
    fresh.agent.restoreParts(metadata, decodeSnapshotMessages(fragments), { allowedModels: ['faux/test'] });
    expect(fresh.agent.messages).toEqual(agent.messages);
    const missing = decodeSnapshotMessages(fragments).slice(0, -1);
    expect(() => scripted([]).agent.restoreParts(metadata, missing)).toThrow(expect.objectContaining({ code: 'SNAPSHOT_INVALID' }));
  });

  it('scenario 15: restoreParts with a tool call lacking its result fails closed and leaves the agent unchanged', async () => {
    const { agent } = scripted([{ toolCalls: [{ name: 't', arguments: {} }] }, { text: 'done' }], { tools: [recordingTool('t').tool] });
    await agent.prompt('go').result();
    const target = scripted([{ text: 'own' }]);
    await target.agent.prompt('mine').result();
    const before = target.agent.messages;
    const unpaired = agent.messages.slice(0, 2);
    const source = scripted([]);
    source.agent.restore({ ...agent.dump(), messages: agent.messages }, { allowedModels: ['faux/test'] });
    // Metadata that matches the unpaired list exactly, so only the pairing check can refuse it.
    const metadata = { ...source.agent.dumpMetadata(), messageCount: unpaired.length, messagesSha256: messagesDigest(unpaired) };
    expect(() => target.agent.restoreParts(metadata, unpaired)).toThrow(expect.objectContaining({ code: 'SNAPSHOT_INVALID', message: expect.stringContaining('has no tool result') }));
    expect(target.agent.messages).toEqual(before);
  });
});
