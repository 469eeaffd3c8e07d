import { describe, expect, it } from 'vitest';
import { checkToolArguments, tapHook, type AgentTool, type RemoteToolSource } from '../../../core/index.js';
import { PNG, collect, deferred, recordingTool, requestTexts, scripted, zodTool } from './helpers.js';

describe('tool results', () => {
  it('scenario 1: an isError result keeps its text and image, and the next request still carries the image', async () => {
    const { tool } = recordingTool('shot', () => ({
      content: [{ type: 'text', text: 'render failed' }, { type: 'image', data: PNG, mimeType: 'image/png' }],
      isError: true,
    }));
    const { agent, model } = scripted([{ toolCalls: [{ name: 'shot', arguments: {} }] }, { text: 'seen' }], { tools: [tool] });
    const events = await collect(agent.prompt('take a shot'));
    const result = agent.messages.find((message) => message.role === 'toolResult')!;
    expect(result).toMatchObject({ role: 'toolResult', isError: true, content: [{ type: 'text', text: 'render failed' }, { type: 'image', mimeType: 'image/png' }] });
    expect(events.find((event) => event.type === 'tool_end')).toMatchObject({ isError: true });
    const second = model.requests[1]!.messages.at(-1)!;
    expect(second.role).toBe('toolResult');
    expect(JSON.stringify(second)).toContain(PNG);
  });

  it('scenario 2: a non-boolean isError is an error outcome, not a success', async () => {
    const { tool } = recordingTool('flaky', () => ({ content: [{ type: 'text', text: 'fine?' }], isError: 'yes' }));
    const { agent } = scripted([{ toolCalls: [{ name: 'flaky', arguments: {} }] }, { text: 'done' }], { tools: [tool] });
    await agent.prompt('go').result();
    const result = agent.messages.find((message) => message.role === 'toolResult')!;
    expect(result.role === 'toolResult' && result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('invalid result');
  });

  it('scenario 3: a blocking beforeToolCall stops the executor and tells the model why', async () => {
    const { tool, calls } = recordingTool('rm');
    const { agent, model } = scripted([{ toolCalls: [{ name: 'rm', arguments: { path: '/' } }] }, { text: 'ok' }], { tools: [tool] });
    tapHook(agent.hooks.beforeToolCall, 'policy', () => ({ block: true, reason: 'R: deleting / is not allowed' }));
    await agent.prompt('clean up').result();
    expect(calls).toHaveLength(0);
    const seen = model.requests[1]!.messages.at(-1)!;
    expect(seen).toMatchObject({ role: 'toolResult', isError: true });
    expect(JSON.stringify(seen)).toContain('R: deleting / is not allowed');
  });

  it('scenario 4: parallel calls are in flight together while before-hooks run one at a time', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const bothStarted = deferred();
    const slow = (name: string): AgentTool => ({
      name,
      description: name,
      parameters: { type: 'object' },
      execute: async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        if (inFlight === 2) bothStarted.resolve();
        // Deadlock guard only: serial execution would never reach two in flight.
        await Promise.race([bothStarted.promise, new Promise((resolve) => setTimeout(resolve, 2000))]);
        inFlight--;
        return { content: [{ type: 'text', text: name }] };
      },
    });
    const { agent } = scripted([{ toolCalls: [{ name: 'a', arguments: {} }, { name: 'b', arguments: {} }] }, { text: 'both done' }], {
      tools: [slow('a'), slow('b')],
    });
    let hooksInFlight = 0;
    let maxHooks = 0;
    tapHook(agent.hooks.beforeToolCall, 'serial-check', async () => {
      hooksInFlight++;
      maxHooks = Math.max(maxHooks, hooksInFlight);
      await new Promise((resolve) => setImmediate(resolve));
      hooksInFlight--;
    });
    await agent.prompt('run both').result();
    expect(maxInFlight).toBe(2);
    expect(maxHooks).toBe(1);
    const results = agent.messages.filter((message) => message.role === 'toolResult');
    expect(results.map((message) => message.role === 'toolResult' && message.toolName)).toEqual(['a', 'b']);
  });

  it('sequential mode runs one call at a time', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const tool = (name: string): AgentTool => ({
      name,
      description: name,
      parameters: { type: 'object' },
      execute: async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight--;
        return { content: [{ type: 'text', text: name }] };
      },
    });
    const { agent } = scripted([{ toolCalls: [{ name: 'a', arguments: {} }, { name: 'b', arguments: {} }] }, { text: 'done' }], { tools: [tool('a'), tool('b')] }, { toolExecution: 'sequential' });
    await agent.prompt('go').result();
    expect(maxInFlight).toBe(1);
  });

  it('validates arguments (zod) before the permission hook sees them', async () => {
    const { agent, model } = scripted([{ toolCalls: [{ name: 'read_path', arguments: { path: '' } }] }, { toolCalls: [{ name: 'read_path', arguments: { path: 'a.txt' } }] }, { text: 'done' }], { tools: [zodTool] });
    const seen: unknown[] = [];
    tapHook(agent.hooks.beforeToolCall, 'watch', (context: { args: unknown }) => void seen.push(context.args));
    await agent.prompt('read').result();
    expect(seen).toEqual([{ path: 'a.txt' }]);
    expect(requestTexts(model, 1).at(-1)).toContain('Invalid arguments for tool "read_path"');
    expect(requestTexts(model, 2).at(-1)).toBe('read a.txt');
    expect(model.requests[0]!.tools[0]).toMatchObject({ name: 'read_path', parameters: { type: 'object', properties: { path: { type: 'string' } } } });
  });

  it('validates JSON Schema arguments with ajv', async () => {
    const { tool, calls } = recordingTool('count');
    (tool as { parameters: unknown }).parameters = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const { agent, model } = scripted([{ toolCalls: [{ name: 'count', arguments: { n: 'x' } }] }, { text: 'done' }], { tools: [tool] });
    await agent.prompt('count').result();
    expect(calls).toHaveLength(0);
    expect(requestTexts(model, 1).at(-1)).toMatch(/Invalid arguments for tool "count": \/n must be integer/);
  });

  it('afterToolCall may replace a result; a failing tap keeps the real one', async () => {
    const { tool } = recordingTool('t', () => ({ content: [{ type: 'text', text: 'real' }], details: { n: 1 } }));
    const { agent } = scripted([{ toolCalls: [{ name: 't', arguments: {} }] }, { text: 'done' }], { tools: [tool] });
    tapHook(agent.hooks.afterToolCall, 'broken', () => {
      throw new Error('boom');
    });
    await agent.prompt('go').result();
    expect(agent.messages[2]).toMatchObject({ role: 'toolResult', content: [{ type: 'text', text: 'real' }], details: { n: 1 }, isError: false });

    const second = scripted([{ toolCalls: [{ name: 't', arguments: {} }] }, { text: 'done' }], { tools: [tool] });
    tapHook(second.agent.hooks.afterToolCall, 'redact', (context: { result: unknown }) => ({ ...context, result: { content: [{ type: 'text', text: 'redacted' }] }, isError: true }));
    const events = await collect(second.agent.prompt('go'));
    expect(second.agent.messages[2]).toMatchObject({ role: 'toolResult', content: [{ type: 'text', text: 'redacted' }], isError: true });
    expect(events.find((event) => event.type === 'tool_end')).toMatchObject({ isError: true, result: { isError: true } });
  });

  it('a throwing executor and an unknown tool become error results; the run goes on', async () => {
    const boom: AgentTool = { name: 'boom', description: 'throws', parameters: { type: 'object' }, execute: async () => Promise.reject(new Error('kaput')) };
    const { agent, model } = scripted([{ toolCalls: [{ name: 'boom', arguments: {} }, { name: 'ghost', arguments: {} }] }, { text: 'recovered' }], { tools: [boom] });
    const result = await agent.prompt('go').result();
    expect(result.status).toBe('completed');
    expect(requestTexts(model, 1).slice(-2)).toEqual(['Tool "boom" failed: kaput', 'Tool "ghost" is not available']);
  });

  it('gives each call a shallow copy of toolCtx and reports progress', async () => {
    const sink: Record<string, unknown> = {};
    const contexts: Array<Record<string, unknown>> = [];
    const tool: AgentTool = {
      name: 'ctx',
      description: 'ctx',
      parameters: { type: 'object' },
      execute: async (_args, context) => {
        contexts.push(context.toolCtx);
        context.toolCtx.replaced = true;
        (context.toolCtx.sink as Record<string, unknown>).written = true;
        await context.onUpdate({ content: [{ type: 'text', text: 'half way' }] });
        return { content: [{ type: 'text', text: 'done' }] };
      },
    };
    const { agent } = scripted([{ toolCalls: [{ name: 'ctx', arguments: {} }, { name: 'ctx', arguments: {} }] }, { text: 'ok' }], { tools: [tool], toolCtx: { sink } });
    const events = await collect(agent.prompt('go'));
    expect(contexts[0]).not.toBe(contexts[1]);
    expect(sink).toEqual({ written: true });
    expect(events.filter((event) => event.type === 'tool_update')).toHaveLength(2);
  });
});

describe('tool inventory', () => {
  function fakeRemote(initial: AgentTool[]) {
    let tools = initial;
    const listeners = new Set<() => void>();
    const source: RemoteToolSource = {
      tools: () => tools,
      onChange: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    };
    return {
      source,
      set(next: AgentTool[]) {
        tools = next;
        for (const listener of listeners) listener();
      },
    };
  }

  it('scenario 20: revision-checked selection; null is all, [] is none; a reappearing remote tool stays out of an explicit selection', async () => {
    const a = recordingTool('a').tool;
    const b = recordingTool('b').tool;
    const mcp = recordingTool('srv__search').tool;
    const remote = fakeRemote([mcp]);
    const { agent, model } = scripted([{ text: '1' }, { text: '2' }], { tools: [a, b], remoteTools: remote.source });
    expect(agent.tools.map((tool) => tool.name)).toEqual(['a', 'b', 'srv__search']);
    expect(agent.localTools.map((tool) => tool.name)).toEqual(['a', 'b']);
    const stale = agent.toolSelectionRevision;
    agent.setActiveTools(['a', 'srv__search'], { expectedRevision: stale });
    expect(() => agent.setActiveTools(null, { expectedRevision: stale })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    remote.set([]);
    remote.set([mcp]);
    expect(agent.activeTools.map((tool) => tool.name)).toEqual(['a']);
    agent.setActiveTools([], { expectedRevision: agent.toolSelectionRevision });
    await agent.prompt('none').result();
    expect(model.requests[0]!.tools).toEqual([]);
    agent.setActiveTools(null, { expectedRevision: agent.toolSelectionRevision });
    await agent.prompt('all').result();
    expect(model.requests[1]!.tools.map((tool) => tool.name)).toEqual(['a', 'b', 'srv__search']);
  });

  it('remote tools are marked remote for the permission hook, and local/remote duplicates fail', async () => {
    const mcp = recordingTool('srv__search');
    const remote = fakeRemote([mcp.tool]);
    const { agent } = scripted([{ toolCalls: [{ name: 'srv__search', arguments: {} }] }, { text: 'ok' }], { remoteTools: remote.source });
    const flags: boolean[] = [];
    tapHook(agent.hooks.beforeToolCall, 'watch', (context: { remote: boolean }) => void flags.push(context.remote));
    await agent.prompt('search').result();
    expect(flags).toEqual([true]);
    expect(mcp.calls).toHaveLength(1);
    expect(() => agent.setTools([recordingTool('srv__search').tool])).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
  });

  it('selection changes and tool changes need an idle agent', async () => {
    const gate = deferred();
    const tool: AgentTool = { name: 'wait', description: 'waits', parameters: { type: 'object' }, execute: async () => (await gate.promise, { content: [] }) };
    const { agent } = scripted([{ toolCalls: [{ name: 'wait', arguments: {} }] }, { text: 'ok' }], { tools: [tool] });
    const stream = agent.prompt('go');
    expect(() => agent.setActiveTools(null, { expectedRevision: agent.toolSelectionRevision })).toThrow(expect.objectContaining({ code: 'INVALID_STATE' }));
    expect(() => agent.setTools([])).toThrow(expect.objectContaining({ code: 'INVALID_STATE' }));
    gate.resolve();
    await stream.result();
  });
});

describe('JSON Schema parameters', () => {
  it('two tools whose schemas share an $id each validate against their own schema (compiled schemas are not kept by the engine)', () => {
    const tool = (name: string, type: string): AgentTool => ({
      name,
      description: name,
      parameters: { $id: 'https://example.test/args.json', type: 'object', properties: { value: { type } }, required: ['value'] },
      execute: async () => ({ content: [] }),
    });
    const numbers = tool('numbers', 'number');
    const strings = tool('strings', 'string');
    expect(checkToolArguments(numbers, { value: 1 })).toEqual({ ok: true, args: { value: 1 } });
    expect(checkToolArguments(strings, { value: 'a' })).toEqual({ ok: true, args: { value: 'a' } });
    expect(checkToolArguments(strings, { value: 1 })).toMatchObject({ ok: false, error: expect.stringContaining('must be string') });
    expect(checkToolArguments(numbers, { value: 'a' })).toMatchObject({ ok: false, error: expect.stringContaining('must be number') });
  });
});

describe('argument isolation', () => {
  it('a tool that mutates its arguments does not rewrite the tool call in history', async () => {
    const mutating: AgentTool = {
      name: 'normalise',
      description: 'changes its input in place',
      parameters: { type: 'object', properties: { path: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['path'] },
      execute: async (args: { path: string; tags?: string[] }) => {
        args.path = `/abs/${args.path}`;
        args.tags?.push('added');
        return { content: [{ type: 'text', text: args.path }] };
      },
    };
    const { agent, model } = scripted([{ toolCalls: [{ name: 'normalise', arguments: { path: 'a.txt', tags: ['x'] } }] }, { text: 'done' }], { tools: [mutating] });
    await agent.prompt('go').result();
    const call = agent.messages.find((message) => message.role === 'assistant')!;
    expect(call.role === 'assistant' && call.content[0]).toMatchObject({ type: 'toolCall', arguments: { path: 'a.txt', tags: ['x'] } });
    const sent = model.requests[1]!.messages.find((message) => message.role === 'assistant')!;
    expect(JSON.stringify(sent)).not.toContain('/abs/');
    expect(requestTexts(model, 1).at(-1)).toBe('/abs/a.txt');
  });
});
