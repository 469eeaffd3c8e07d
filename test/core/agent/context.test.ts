import { describe, expect, it } from 'vitest';
import { tapHook, type Message } from '../../../core/index.js';
import { PNG, recordingTool, requestTexts, scripted } from './helpers.js';

describe('context hook', () => {
  it('scenario 13: an appended note changes the request but not agent.messages', async () => {
    const { agent, model } = scripted([{ text: 'ok' }]);
    tapHook(agent.hooks.context, 'note', (messages: Message[]) => [...messages, { role: 'user', content: 'note: be brief', timestamp: 0 }]);
    await agent.prompt('hello').result();
    expect(requestTexts(model, 0)).toEqual(['hello', 'note: be brief']);
    expect(agent.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(agent.messages[0]).toMatchObject({ content: 'hello' });
  });

  it('scenario 13: an orphan tool result fails the request with history untouched', async () => {
    const { agent, model } = scripted([{ text: 'never' }]);
    tapHook(agent.hooks.context, 'orphan', (messages: Message[]) => [
      ...messages,
      { role: 'toolResult', toolCallId: 'nobody', toolName: 'x', content: [], isError: false, timestamp: 0 },
    ]);
    const stream = agent.prompt('hello');
    await expect(stream.result()).rejects.toMatchObject({ code: 'HOOK_FAILED', message: expect.stringContaining('nobody') });
    expect(model.callCount).toBe(0);
    expect(agent.messages.map((message) => message.role)).toEqual(['user']);
    expect(agent.isIdle).toBe(true);
  });

  it('unknown roles and throwing taps fail the request; writing into the read-only copy fails it and never reaches history', async () => {
    const unknown = scripted([{ text: 'never' }]);
    tapHook(unknown.agent.hooks.context, 'weird', (messages: Message[]) => [...messages, { role: 'system', content: 'x' }]);
    await expect(unknown.agent.prompt('hi').result()).rejects.toMatchObject({ code: 'HOOK_FAILED', message: expect.stringContaining('1.role') });

    const mutating = scripted([{ text: 'never' }]);
    tapHook(mutating.agent.hooks.context, 'mutate', (messages: Message[]) => {
      (messages[0] as { content: string }).content = 'mutated';
    });
    await expect(mutating.agent.prompt('original').result()).rejects.toMatchObject({ code: 'HOOK_FAILED', message: expect.stringContaining('context hook "mutate" failed') });
    expect(mutating.agent.messages[0]).toMatchObject({ content: 'original' });
    expect(mutating.model.callCount).toBe(0);
  });

  it('a tap replaces a message by returning a new one; history keeps the original', async () => {
    const { agent, model } = scripted([{ text: 'ok' }]);
    tapHook(agent.hooks.context, 'redact', (messages: Message[]) => messages.map((message) => (message.role === 'user' ? { ...message, content: 'redacted' } : message)));
    await agent.prompt('secret').result();
    expect(requestTexts(model, 0)).toEqual(['redacted']);
    expect(agent.messages[0]).toMatchObject({ content: 'secret' });
  });

  it('taps see the same read-only copy of a message on every call, not a fresh copy of history each time', async () => {
    const { agent, model } = scripted([{ toolCalls: [{ name: 't', arguments: {} }] }, { toolCalls: [{ name: 't', arguments: {} }] }, { text: 'done' }], { tools: [recordingTool('t').tool] });
    const seen: Message[][] = [];
    tapHook(agent.hooks.context, 'watch', (messages: Message[]) => void seen.push(messages));
    await agent.prompt('go').result();
    expect(seen.map((messages) => messages.length)).toEqual([1, 3, 5]);
    expect(seen[1]![0]).toBe(seen[0]![0]);
    expect(seen[2]![2]).toBe(seen[1]![2]);
    expect(Object.isFrozen(seen[2]![1])).toBe(true);
    // What the model got is history's content, and history itself is not frozen by it.
    expect(JSON.stringify(model.requests[2]!.messages)).toBe(JSON.stringify(agent.messages.slice(0, 5)));
    expect(Object.isFrozen(agent.messages[0])).toBe(false);
  });

  it('runs before every model call, with the turn number', async () => {
    const { agent } = scripted([{ toolCalls: [{ name: 't', arguments: {} }] }, { text: 'done' }], { tools: [recordingTool('t').tool] });
    const turns: number[] = [];
    tapHook(agent.hooks.context, 'count', (_messages: Message[], info: { turn: number }) => void turns.push(info.turn));
    await agent.prompt('go').result();
    expect(turns).toEqual([1, 2]);
  });
});

describe('image admission', () => {
  const image = { type: 'image' as const, data: PNG, mimeType: 'image/png' };

  it('scenario 21: with maxCount 1, one user image plus one tool-result image is refused; nothing is dropped', async () => {
    const { tool } = recordingTool('shot', () => ({ content: [image] }));
    const { agent, model } = scripted([{ toolCalls: [{ name: 'shot', arguments: {} }] }, { text: 'never' }], { tools: [tool] }, {}, { images: { maxCount: 1 } });
    const stream = agent.prompt({ role: 'user', content: [{ type: 'text', text: 'look' }, image], timestamp: 1 });
    await expect(stream.result()).rejects.toMatchObject({ code: 'IMAGE_REJECTED', message: expect.stringContaining('at most 1') });
    expect(model.callCount).toBe(1);
    const history = agent.messages;
    expect(history.map((message) => message.role)).toEqual(['user', 'assistant', 'toolResult']);
    expect(JSON.stringify(history[0])).toContain(PNG);
    expect(JSON.stringify(history[2])).toContain(PNG);
  });

  it('refuses undeclared MIME types and images for text-only models', async () => {
    const gif = scripted([{ text: 'never' }]);
    const gifStream = gif.agent.prompt({ role: 'user', content: [{ type: 'image', data: PNG, mimeType: 'image/tiff' }], timestamp: 1 });
    await expect(gifStream.result()).rejects.toMatchObject({ code: 'IMAGE_REJECTED', message: expect.stringContaining('image/tiff') });
    const textOnly = scripted([{ text: 'never' }], {}, {}, { input: ['text'] });
    await expect(textOnly.agent.prompt({ role: 'user', content: [image], timestamp: 1 }).result()).rejects.toMatchObject({ code: 'IMAGE_REJECTED' });
    expect(textOnly.model.callCount).toBe(0);
  });
});
