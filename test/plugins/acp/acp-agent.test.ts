/** The ACP agent in-process: the SDK's client app connected straight to it, with a faux-backed Agent. */
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { Agent, type AgentTool } from '../../../core/index.js';
import { createAcpAgent, replayUpdates } from '../../../plugins/acp/index.js';
import { createFauxStreamFn } from '../../../plugins/faux/index.js';

const ran: string[] = [];
const noteTool: AgentTool = {
  name: 'note',
  description: 'remember a note',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  async execute(args: { text: string }) {
    ran.push(args.text);
    return { content: [{ type: 'text', text: `noted ${args.text}` }] };
  },
};

describe('createAcpAgent', () => {
  it('asks the client before each tool call and cancels the permission request with the run', async () => {
    const streamFn = createFauxStreamFn({
      responses: [{ toolCalls: [{ name: 'note', arguments: { text: 'a' } }] }, { thinking: 'ok', text: 'done' }, { toolCalls: [{ name: 'note', arguments: { text: 'b' } }] }, { text: 'x' }],
    });
    const app = createAcpAgent({ createAgent: () => new Agent(streamFn, { model: 'faux/demo' }, { tools: [noteTool] }) });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asks = 0;
    const client = acp.client({ name: 'test' }).onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      asks++;
      expect(params.options.map((option) => option.kind)).toEqual(['allow_once', 'reject_once']);
      if (asks === 1) return { outcome: { outcome: 'selected', optionId: 'allow' } };
      release();
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      return { outcome: { outcome: 'selected', optionId: 'allow' } };
    });
    await client.connectWith(app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      await ctx.buildSession('/tmp').withSession(async (session) => {
        expect((await session.prompt('note a')).stopReason).toBe('end_turn');
        const updates: string[] = [];
        for (;;) {
          const message = await session.nextUpdate();
          if (message.kind === 'stop') break;
          updates.push(message.update.sessionUpdate);
        }
        expect(updates).toEqual(['tool_call', 'tool_call_update', 'agent_thought_chunk', 'agent_message_chunk']);
        expect(ran).toEqual(['a']);

        // A cancel while the client still decides: the turn ends cancelled and the tool never runs.
        const pending = session.prompt('note b');
        await held;
        await ctx.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
        expect((await pending).stopReason).toBe('cancelled');
        expect(ran).toEqual(['a']);
      });
      await expect(ctx.request(acp.methods.agent.session.prompt, { sessionId: 'missing', prompt: [{ type: 'text', text: 'x' }] })).rejects.toThrow();
    });
  });

  it('replays history as user, agent, thought and tool updates', () => {
    const updates = replayUpdates([
      { role: 'user', content: 'hi', timestamp: 1 },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm' }, { type: 'toolCall', id: 't', name: 'read', arguments: { path: 'a' } }], model: 'm', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, stopReason: 'toolUse', timestamp: 2 },
      { role: 'toolResult', toolCallId: 't', toolName: 'read', content: [{ type: 'text', text: 'x' }], isError: true, timestamp: 3 },
    ]);
    expect(updates).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'hi' } },
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hm' } },
      { sessionUpdate: 'tool_call', toolCallId: 't', title: 'read: a', kind: 'read', status: 'pending', rawInput: { path: 'a' } },
      { sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'failed', content: [{ type: 'content', content: { type: 'text', text: 'x' } }] },
    ]);
  });
});

describe('createAcpAgent session/new', () => {
  it('refuses MCP servers named by the client instead of ignoring them', async () => {
    const app = createAcpAgent({ createAgent: () => new Agent(createFauxStreamFn({ responses: [] }), { model: 'faux/demo' }) });
    await acp.client({ name: 'test' }).connectWith(app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      await expect(
        ctx.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [{ name: 'fs', command: 'npx', args: [], env: [] }] }),
      ).rejects.toThrow(/configure them under mcp_servers/);
    });
  });
});

describe('createAcpAgent prompt content', () => {
  it('sends an image-only prompt without an empty text part', async () => {
    const agent = new Agent(createFauxStreamFn({ responses: [{ text: 'a red dot' }] }), { model: 'faux/demo' });
    const app = createAcpAgent({ createAgent: () => agent });
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    await acp.client({ name: 'test' }).connectWith(app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
      const answer = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'image', data: png, mimeType: 'image/png' }] });
      expect(answer.stopReason).toBe('end_turn');
    });
    expect(agent.messages[0]).toMatchObject({ role: 'user', content: [{ type: 'image', mimeType: 'image/png' }] });
    expect((agent.messages[0]!.content as unknown[]).length).toBe(1);
  });
});

describe('createAcpAgent connection end', () => {
  it('closes every session agent when the connection ends, even when one close fails', async () => {
    const agents: Agent[] = [];
    const closeErrors: unknown[] = [];
    const app = createAcpAgent({
      onCloseError: (error) => void closeErrors.push(error),
      createAgent: () => {
        const agent = new Agent(createFauxStreamFn({ responses: [] }), { model: 'faux/demo' });
        // The first session's close fails (a plugin's close threw): the others must still close.
        if (agents.length === 0) {
          const close = agent.close.bind(agent);
          agent.close = async () => {
            await close();
            throw new Error('close failed');
          };
        }
        agents.push(agent);
        return agent;
      },
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await acp.client({ name: 'test' }).connectWith(app, async (ctx) => {
        await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
        await ctx.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
        await ctx.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] });
      });
      await expect.poll(() => agents.map((agent) => agent.isClosed)).toEqual([true, true]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
      expect(closeErrors).toEqual([new Error('close failed')]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('closes an agent whose session was still being created when the client left', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const agent = new Agent(createFauxStreamFn({ responses: [] }), { model: 'faux/demo' });
    const app = createAcpAgent({ createAgent: async () => (await gate, agent) });
    await acp.client({ name: 'test' }).connectWith(app, async (ctx) => {
      await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      void ctx.request(acp.methods.agent.session.new, { cwd: '/tmp', mcpServers: [] }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    release();
    await expect.poll(() => agent.isClosed).toBe(true);
  });
});
