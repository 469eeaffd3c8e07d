import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, createKernel, type AgentEvent, type ToolResultMessage } from '../../../core/index.js';
import { createFauxStreamFn, type FauxResponse } from '../../../plugins/faux/index.js';
import mcpPlugin, { bindMcpRegistry, createMcpAgent, McpRegistry, McpRegistryToken } from '../../../plugins/mcp/index.js';
import { everythingStdio, fixtureStdio } from './support.js';

const callEcho: FauxResponse[] = [
  { toolCalls: [{ name: 'every__echo', arguments: { message: 'from the model' } }] },
  { text: 'done' },
];

async function run(agent: Agent, text: string): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of agent.prompt(text)) events.push(event);
  return events;
}

function toolResults(agent: Agent): ToolResultMessage[] {
  return agent.messages.filter((message): message is ToolResultMessage => message.role === 'toolResult');
}

describe('an Agent with MCP tools (faux model, server-everything over stdio)', () => {
  const blocked = new McpRegistry();
  const allowed = new McpRegistry();

  beforeAll(async () => {
    blocked.register('every', everythingStdio());
    allowed.register('every', everythingStdio({ allow_tools: true }));
    await Promise.all([blocked.connect('every'), allowed.connect('every')]);
  });
  afterAll(() => Promise.all([blocked.close(), allowed.close()]));

  it('blocks a call to a server without allow_tools, with a reason the model sees', async () => {
    const model = createFauxStreamFn({ responses: callEcho });
    const agent = new Agent(model, { model: 'faux/test' });
    bindMcpRegistry(agent, blocked);
    expect(agent.tools.map((tool) => tool.name)).toContain('every__echo');
    expect(agent.localTools).toEqual([]);
    await run(agent, 'echo something');
    const [result] = toolResults(agent);
    expect(result).toMatchObject({ toolName: 'every__echo', isError: true });
    expect(JSON.stringify(result!.content)).toMatch(/not allowed to run tools: set allow_tools: true/);
    await agent.close();
  });

  it('runs the call end to end when the host allows it', async () => {
    const model = createFauxStreamFn({ responses: callEcho });
    const agent = new Agent(model, { model: 'faux/test' });
    bindMcpRegistry(agent, allowed);
    await run(agent, 'echo something');
    const [result] = toolResults(agent);
    expect(result).toMatchObject({ toolName: 'every__echo', isError: false, content: [{ type: 'text', text: 'Echo: from the model' }] });
    expect(result!.details).toMatchObject({ server: 'every', tool: 'echo', structuredContentPresent: false });
    // The model was told about the MCP tool under its alias.
    expect(model.requests[0]!.tools.map((tool) => tool.name)).toContain('every__echo');
    await agent.close();
    // The registry is host-owned: closing the agent leaves it connected.
    expect(allowed.status('every')[0]!.state).toBe('connected');
  });

  it('takes the registry as an mcpRegistry option (createMcpAgent)', async () => {
    const agent = createMcpAgent(createFauxStreamFn({ responses: callEcho }), { model: 'faux/test' }, { mcpRegistry: allowed });
    await run(agent, 'echo something');
    expect(toolResults(agent)[0]).toMatchObject({ isError: false, content: [{ type: 'text', text: 'Echo: from the model' }] });
    await agent.close();
  });

  it('rejects invalid arguments before the call', async () => {
    const model = createFauxStreamFn({
      responses: [{ toolCalls: [{ name: 'every__get-sum', arguments: { a: 'one', b: 2 } }] }, { text: 'ok' }],
    });
    const agent = new Agent(model, { model: 'faux/test' });
    bindMcpRegistry(agent, allowed);
    await run(agent, 'add');
    expect(toolResults(agent)[0]).toMatchObject({ isError: true });
    expect(JSON.stringify(toolResults(agent)[0]!.content)).toMatch(/must be number/);
    await agent.close();
  });

  it('fails a local tool whose name equals an MCP alias', () => {
    const agent = new Agent(createFauxStreamFn({ responses: [] }), { model: 'faux/test' });
    const local = { name: 'every__echo', description: 'local', parameters: { type: 'object' }, execute: async () => ({ content: [] }) };
    agent.setTools([local]);
    expect(() => bindMcpRegistry(agent, allowed)).toThrow(/both a local and a remote tool/);
    expect(agent.tools.map((tool) => tool.name)).toEqual(['every__echo']);
  });
});

describe('explicit active selection and reconnects', () => {
  it('never re-adds a tool to an explicit selection when its server comes back', async () => {
    const registry = new McpRegistry();
    registry.register('fx', fixtureStdio({ allow_tools: true }));
    await registry.connect('fx');
    const agent = new Agent(createFauxStreamFn({ responses: [] }), { model: 'faux/test' });
    bindMcpRegistry(agent, registry);
    agent.setActiveTools(['fx__add', 'fx__draft4'], { expectedRevision: agent.toolSelectionRevision });
    await registry.disconnect('fx');
    expect(agent.activeTools.map((tool) => tool.name)).toEqual([]);
    await registry.connect('fx');
    expect(agent.tools.map((tool) => tool.name)).toContain('fx__add');
    expect(agent.activeTools.map((tool) => tool.name)).toEqual([]);
    await agent.close();
    await registry.close();
  });

  it('a proxy taken before a refresh is stale afterwards', async () => {
    const registry = new McpRegistry();
    registry.register('fx', fixtureStdio({ allow_tools: true }));
    await registry.connect('fx');
    const old = registry.agentTools().find((tool) => tool.name === 'fx__add')!;
    await registry.refresh('fx');
    const signal = new AbortController().signal;
    await expect(old.execute({ a: 1, b: 2 }, { toolCallId: 't', signal, onUpdate: () => {}, toolCtx: {} })).rejects.toThrow(/stale/);
    const fresh = registry.agentTools().find((tool) => tool.name === 'fx__add')!;
    expect((await fresh.execute({ a: 1, b: 2 }, { toolCallId: 't', signal, onUpdate: () => {}, toolCtx: {} })).content[0]).toEqual({ type: 'text', text: '3' });
    await registry.close();
  });
});

describe('grants', () => {
  it('gives a child only the granted tools, still under allow_tools', async () => {
    const registry = new McpRegistry();
    registry.register('fx', fixtureStdio({ allow_tools: true }));
    await registry.connect('fx');
    expect(() => registry.grant(['fx__nope'])).toThrow(/cannot grant unknown MCP tool\(s\) fx__nope/);
    const child = new Agent(createFauxStreamFn({ responses: [] }), { model: 'faux/test' }, { remoteTools: registry.grant(['fx__add']) });
    expect(child.tools.map((tool) => tool.name)).toEqual(['fx__add']);
    await child.close();
    await registry.close();
  });
});

describe('the mcp plugin in a kernel', () => {
  it('registers the config servers inertly, binds kernel agents, and closes what it started', async () => {
    const kernel = await createKernel({
      plugins: [mcpPlugin],
      config: { mcp_servers: { every: { transport: 'stdio', command: process.execPath, args: everythingStdio().args as string[], allow_tools: true } } },
    });
    await kernel.open();
    const registry = kernel.get(McpRegistryToken);
    expect(registry.status('every')[0]!.state).toBe('registered');
    const agent = kernel.createAgent(createFauxStreamFn({ responses: callEcho }), { model: 'faux/test' });
    expect(agent.tools).toEqual([]);
    const { pid } = await registry.connect('every');
    expect(agent.tools.map((tool) => tool.name)).toContain('every__echo');
    await run(agent, 'echo');
    expect(toolResults(agent)[0]).toMatchObject({ isError: false, content: [{ type: 'text', text: 'Echo: from the model' }] });
    await agent.close();
    await kernel.close();
    expect(registry.status('every')[0]!.state).toBe('disconnected');
    expect(() => process.kill(-pid!, 0)).toThrow();
  });

  it('closing one kernel closes only its own servers, not another kernel\'s', async () => {
    const config = { mcp_servers: { every: { transport: 'stdio' as const, command: process.execPath, args: everythingStdio().args as string[] } } };
    const first = await createKernel({ plugins: [mcpPlugin], config });
    const second = await createKernel({ plugins: [mcpPlugin], config });
    await first.open();
    await second.open();
    await first.get(McpRegistryToken).connect('every');
    const { pid } = await second.get(McpRegistryToken).connect('every');
    await first.close();
    expect(first.get(McpRegistryToken).status('every')[0]!.state).toBe('disconnected');
    expect(second.get(McpRegistryToken).status('every')[0]!.state).toBe('connected');
    expect(() => process.kill(-pid!, 0)).not.toThrow();
    await second.close();
    expect(() => process.kill(-pid!, 0)).toThrow();
  });
});
