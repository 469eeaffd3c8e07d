import { describe, expect, it } from 'vitest';
import { createKernel, definePlugin, tapHook, type AgentTool } from '../../../core/index.js';
import { createFauxStreamFn } from '../../../plugins/faux/index.js';
import { collect, deferred, scripted } from './helpers.js';

describe('cancellation', () => {
  it('scenario 18: cancelAndWait during a slow tool returns after hook cleanup; the next prompt does not re-run the tool', async () => {
    const started = deferred();
    let executions = 0;
    let cleanedUp = false;
    const slow: AgentTool = {
      name: 'slow',
      description: 'waits for abort',
      parameters: { type: 'object' },
      execute: (_args, { signal }) => {
        executions++;
        started.resolve();
        return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }));
      },
    };
    const { agent, model } = scripted([{ toolCalls: [{ name: 'slow', arguments: {} }] }, { text: 'fresh answer' }], { tools: [slow] });
    tapHook(agent.hooks.afterToolCall, 'cleanup', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      cleanedUp = true;
    });
    const stream = agent.prompt('start');
    await started.promise;
    await agent.cancelAndWait();
    expect(cleanedUp).toBe(true);
    expect(agent.isIdle).toBe(true);
    expect(await stream.result()).toMatchObject({ status: 'aborted' });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'toolResult', isError: true, content: [{ text: expect.stringContaining('cancelled') }] });
    await agent.prompt('next').result();
    expect(executions).toBe(1);
    expect(model.callCount).toBe(2);
  });

  it('abort during a model delay ends the message as aborted; waitForIdle waits without cancelling', async () => {
    const { agent } = scripted([{ text: 'late', delayMs: 60_000 }]);
    const stream = agent.prompt('go');
    await new Promise((resolve) => setImmediate(resolve));
    agent.abort();
    await agent.waitForIdle();
    expect(await stream.result()).toMatchObject({ status: 'aborted', stopReason: 'aborted' });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', stopReason: 'aborted' });
  });

  it('cancelAndWait does not hang on a consumer that reads nothing, and the events stay readable', async () => {
    const words = Array.from({ length: 400 }, (_, index) => `w${index}`).join(' ');
    const { agent } = scripted([{ text: words }]);
    const stream = agent.prompt('go');
    await new Promise((resolve) => setImmediate(resolve));
    await agent.cancelAndWait();
    const events = await collect(stream);
    expect(events.at(-1)!.type).toBe('agent_end');
  });

  it('close() cancels, and Symbol.asyncDispose closes', async () => {
    const { agent } = scripted([{ text: 'x', delayMs: 60_000 }]);
    agent.prompt('go');
    await agent[Symbol.asyncDispose]();
    expect(agent.isClosed).toBe(true);
    expect(agent.isIdle).toBe(true);
  });
});

describe('kernel.createAgent', () => {
  it('fires agentCreated before the first prompt and agentClosed on close', async () => {
    const kernel = await createKernel();
    const created: unknown[] = [];
    const closed: unknown[] = [];
    kernel.hooks.agentCreated.tap('test', (agent) => {
      created.push(agent);
      tapHook(agent.hooks.inputTransform, 'test', (request: { text: string }) => request.text.toUpperCase());
    });
    kernel.hooks.agentClosed.tap('test', (agent) => closed.push(agent));
    const model = createFauxStreamFn({ responses: [{ text: 'ok' }] });
    const agent = kernel.createAgent(model, { model: 'faux/k' });
    expect(created).toEqual([agent]);
    await agent.prompt('shout').result();
    expect(agent.messages[0]).toMatchObject({ content: 'SHOUT' });
    await agent.close();
    await agent.close();
    expect(closed).toEqual([agent]);
  });

  it('kernel.close() cancels and closes its agents before closing the plugins they use', async () => {
    const log: string[] = [];
    const plugin = definePlugin({ name: 'resource', close: () => void log.push('plugin closed') });
    const kernel = await createKernel({ plugins: [plugin] });
    await kernel.open();
    kernel.hooks.agentClosed.tap('test', () => void log.push('agent closed'));
    const model = createFauxStreamFn({ responses: [{ text: 'late', delayMs: 60_000 }] });
    const agent = kernel.createAgent(model, { model: 'faux/k' });
    const stream = agent.prompt('go');
    await kernel.close();
    expect(agent.isClosed).toBe(true);
    expect(await stream.result()).toMatchObject({ status: 'aborted' });
    expect(log).toEqual(['agent closed', 'plugin closed']);
  });

  it('refuses to create an agent once the kernel is closed (its plugins released what agents would use)', async () => {
    const kernel = await createKernel();
    const created: unknown[] = [];
    kernel.hooks.agentCreated.tap('test', (agent) => void created.push(agent));
    await kernel.close();
    const model = createFauxStreamFn({ responses: [{ text: 'ok' }] });
    expect(() => kernel.createAgent(model, { model: 'faux/k' })).toThrow(expect.objectContaining({ code: 'CLOSED' }));
    expect(created).toEqual([]);
  });
});
