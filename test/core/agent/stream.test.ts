import { describe, expect, it } from 'vitest';
import { Agent, LIMITS, type AgentEvent } from '../../../core/index.js';
import { createFauxStreamFn } from '../../../plugins/faux/index.js';
import { collect, scripted } from './helpers.js';

describe('prompt streams', () => {
  it('reports each provider retry as a model_retry event before the message', async () => {
    const reply = createFauxStreamFn({ responses: [{ text: 'after retry' }] });
    const retrying = Object.assign(
      async function* (model: string, context: Parameters<typeof reply>[1], options: Parameters<typeof reply>[2]) {
        yield { type: 'retry' as const, attempt: 1, delayMs: 250, reason: 'HTTP 429 rate limited' };
        yield* reply(model, context, options);
      },
      { resolveModel: reply.resolveModel },
    );
    const agent = new Agent(retrying, { model: 'faux/test' });
    const events = await collect(agent.prompt('hi'));
    const retryIndex = events.findIndex((event) => event.type === 'model_retry');
    expect(events[retryIndex]).toEqual({ type: 'model_retry', attempt: 1, delayMs: 250, reason: 'HTTP 429 rate limited' });
    expect(retryIndex).toBeLessThan(events.findIndex((event) => event.type === 'message_start' && event.message.role === 'assistant'));
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'after retry' }] });
  });

  it('emits the lifecycle in order and ends with the whole history', async () => {
    const { agent } = scripted([{ thinking: 'hmm', text: 'hello there' }]);
    const events = await collect(agent.prompt('hi'));
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('agent_start');
    expect(types.at(-1)).toBe('agent_end');
    expect(types.filter((type) => type === 'turn_start')).toHaveLength(1);
    expect(types.indexOf('message_update')).toBeGreaterThan(types.indexOf('turn_start'));
    const end = events.at(-1) as Extract<AgentEvent, { type: 'agent_end' }>;
    expect(end.messages).toEqual(agent.messages);
    expect(agent.messages[1]).toMatchObject({ role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'hello there' }], stopReason: 'stop' });
    expect(agent.isIdle).toBe(true);
  });

  it('scenario 7: a consumer that reads nothing stalls the producer at 256 events; a disposed subscriber hears nothing more', async () => {
    const words = Array.from({ length: 600 }, (_, index) => `w${index}`).join(' ');
    const { agent } = scripted([{ text: words }]);
    const seen: AgentEvent[] = [];
    const dispose = agent.subscribe((event) => seen.push(event));
    const stream = agent.prompt('talk a lot');
    // Let the producer run as far as it can.
    for (let spin = 0; spin < 50; spin++) await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toHaveLength(LIMITS.eventBuffer);
    expect(agent.isIdle).toBe(false);
    dispose();
    dispose();
    const events = await collect(stream);
    expect(events.length).toBeGreaterThan(600);
    expect(seen).toHaveLength(LIMITS.eventBuffer);
    expect(agent.isIdle).toBe(true);
  });

  it('result() alone lets the run finish (events are discarded, subscribers still hear them)', async () => {
    const words = Array.from({ length: 400 }, (_, index) => `w${index}`).join(' ');
    const { agent } = scripted([{ text: words }]);
    let count = 0;
    agent.subscribe(() => count++);
    const result = await agent.prompt('go').result();
    expect(result.status).toBe('completed');
    expect(count).toBeGreaterThan(400);
  });

  it('model failures are transcript data with stopReason error, and usage adds up', async () => {
    const { agent } = scripted([{ text: 'one', usage: { input: 10, output: 2 } }, { text: 'partial', error: 'upstream 503' }]);
    await agent.prompt('a').result();
    const result = await agent.prompt('b').result();
    expect(result).toMatchObject({ status: 'error', stopReason: 'error', errorMessage: 'upstream 503' });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'error', errorMessage: 'upstream 503' });
    expect(agent.usage.input).toBeGreaterThanOrEqual(10);
    expect(agent.usage.output).toBeGreaterThanOrEqual(2);
  });

  it('a stream function that throws still ends the message with an error', async () => {
    const broken = (() => {
      throw new Error('socket closed');
    }) as never;
    const agent = new Agent(broken, { model: 'x/y' });
    const result = await agent.prompt('hi').result();
    expect(result.status).toBe('error');
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'error', errorMessage: expect.stringContaining('socket closed') });
  });

  it('misuse throws XdogError: a second prompt while running, prompt([]) on empty history, use after close', async () => {
    const { agent } = scripted([{ text: 'a', delayMs: 20 }, { text: 'b' }]);
    expect(() => agent.prompt([])).toThrow(expect.objectContaining({ code: 'INVALID_STATE' }));
    const stream = agent.prompt('first');
    expect(() => agent.prompt('second')).toThrow(expect.objectContaining({ code: 'INVALID_STATE' }));
    await stream.result();
    await agent.prompt([]).result();
    expect(agent.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'assistant']);
    await agent.close();
    expect(() => agent.prompt('again')).toThrow(expect.objectContaining({ code: 'CLOSED' }));
  });

  it('a message list that breaks tool pairing is refused before anything runs', () => {
    const { agent, model } = scripted([{ text: 'never' }]);
    const orphan = { role: 'toolResult' as const, toolCallId: 'c9', toolName: 'x', content: [], isError: false, timestamp: 1 };
    expect(() => agent.prompt([orphan])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(model.callCount).toBe(0);
    expect(agent.isIdle).toBe(true);
  });

  it('a message list is one turn and setStreamFn works while idle', async () => {
    const { agent } = scripted([{ text: 'from the first model' }]);
    await agent.prompt([{ role: 'user', content: 'one', timestamp: 1 }, { role: 'user', content: 'two', timestamp: 2 }]).result();
    const other = createFauxStreamFn({ responses: [{ text: 'from the second model' }] });
    agent.setStreamFn(other);
    await agent.prompt('three').result();
    expect(other.requests[0]!.messages.map((message) => message.role)).toEqual(['user', 'user', 'assistant', 'user']);
  });

  it('emits snapshots at safe boundaries when asked', async () => {
    const { agent } = scripted([{ text: 'hi' }], {}, { emitSnapshots: true });
    const events = await collect(agent.prompt('hello'));
    const snapshot = events.find((event) => event.type === 'snapshot');
    expect(snapshot).toMatchObject({ snapshot: { kind: 'xdog.agent.snapshot', messages: [{ role: 'user' }, { role: 'assistant' }] } });
  });
});
