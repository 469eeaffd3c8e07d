import { describe, expect, it } from 'vitest';
import { buildMetadata, tapHook, zeroUsage, type ApprovalAnswer, type Message, type ApprovalBroker, type ApprovalRequest } from '../../../core/index.js';
import { deferred, recordingTool, scripted, zodTool } from './helpers.js';

/** A broker that records what it is asked and answers with `answer`. */
function broker(answer: (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer> | ApprovalAnswer) {
  const asked: ApprovalRequest[] = [];
  const approvals: ApprovalBroker = {
    request: async (request, signal) => {
      asked.push(request);
      return answer(request, signal);
    },
  };
  return { approvals, asked };
}

const askAlways = { ask: true as const, reason: 'rm deletes files' };

describe('beforeToolCall may ask a person through the ApprovalBroker', () => {
  it('approve runs the call with the arguments the person saw', async () => {
    const { tool, calls } = recordingTool('rm');
    const { approvals, asked } = broker(() => ({ action: 'approve' }));
    const { agent } = scripted([{ toolCalls: [{ name: 'rm', arguments: { path: 'a.txt' } }] }, { text: 'ok' }], { tools: [tool], approvals });
    tapHook(agent.hooks.beforeToolCall, 'policy', () => askAlways);
    await agent.prompt('clean').result();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ reason: 'rm deletes files', args: { path: 'a.txt' }, toolCall: { name: 'rm' } });
    expect(calls).toEqual([{ path: 'a.txt' }]);
  });

  it('deny keeps the executor from running and the next model request carries the reason', async () => {
    const { tool, calls } = recordingTool('rm');
    const { approvals } = broker(() => ({ action: 'deny', reason: 'keep a.txt, it is the only copy' }));
    const { agent, model } = scripted([{ toolCalls: [{ name: 'rm', arguments: { path: 'a.txt' } }] }, { text: 'ok' }], { tools: [tool], approvals });
    tapHook(agent.hooks.beforeToolCall, 'policy', () => askAlways);
    await agent.prompt('clean').result();
    expect(calls).toHaveLength(0);
    const seen = model.requests[1]!.messages.at(-1)!;
    expect(seen).toMatchObject({ role: 'toolResult', isError: true });
    expect(JSON.stringify(seen)).toContain('Tool call denied: keep a.txt, it is the only copy');
  });

  it('edit runs the call with new arguments, validated against the schema, and tells the model', async () => {
    const ran: unknown[] = [];
    const tool = { ...zodTool, execute: async (args: { path: string }) => (ran.push(args), { content: [{ type: 'text' as const, text: `read ${args.path}` }] }) };
    const { approvals } = broker(() => ({ action: 'edit', args: { path: 'safe.txt' } }));
    const { agent, model } = scripted([{ toolCalls: [{ name: 'read_path', arguments: { path: 'secret.txt' } }] }, { text: 'ok' }], { tools: [tool], approvals });
    tapHook(agent.hooks.beforeToolCall, 'policy', () => askAlways);
    await agent.prompt('read').result();
    expect(ran).toEqual([{ path: 'safe.txt' }]);
    const seen = JSON.stringify(model.requests[1]!.messages.at(-1));
    expect(seen).toContain('a person edited the arguments');
    expect(seen).toContain('{\\"path\\":\\"safe.txt\\"}');
    expect(seen).toContain('read safe.txt');
  });

  it('an approved or edited call still meets the permission hooks after the one that asked', async () => {
    const ran: unknown[] = [];
    const tool = { ...zodTool, execute: async (args: { path: string }) => (ran.push(args), { content: [{ type: 'text' as const, text: 'read' }] }) };
    const { approvals } = broker(() => ({ action: 'edit', args: { path: '/etc/shadow' } }));
    const { agent, model } = scripted([{ toolCalls: [{ name: 'read_path', arguments: { path: 'notes.txt' } }] }, { text: 'ok' }], { tools: [tool], approvals });
    const judged: unknown[] = [];
    tapHook(agent.hooks.beforeToolCall, 'policy', () => askAlways);
    tapHook(agent.hooks.beforeToolCall, 'later', (context) => {
      judged.push(context.args);
      return (context.args as { path: string }).path.startsWith('/etc') ? { block: true as const, reason: 'not under /etc' } : undefined;
    });
    await agent.prompt('read').result();
    expect(judged).toEqual([{ path: '/etc/shadow' }]);
    expect(ran).toHaveLength(0);
    expect(JSON.stringify(model.requests[1]!.messages.at(-1))).toContain('Tool call blocked: not under /etc');
  });

  it('an edit that breaks the schema is not executed and the model is told why', async () => {
    const ran: unknown[] = [];
    const tool = { ...zodTool, execute: async (args: { path: string }) => (ran.push(args), { content: [{ type: 'text' as const, text: 'read' }] }) };
    const { approvals } = broker(() => ({ action: 'edit', args: { path: '' } }));
    const { agent, model } = scripted([{ toolCalls: [{ name: 'read_path', arguments: { path: 'x' } }] }, { text: 'ok' }], { tools: [tool], approvals });
    tapHook(agent.hooks.beforeToolCall, 'policy', () => askAlways);
    await agent.prompt('read').result();
    expect(ran).toHaveLength(0);
    expect(JSON.stringify(model.requests[1]!.messages.at(-1))).toContain('the edited arguments are invalid');
  });

  it('without a broker an ask is a denial that names the reason', async () => {
    const { tool, calls } = recordingTool('rm');
    const { agent, model } = scripted([{ toolCalls: [{ name: 'rm', arguments: {} }] }, { text: 'ok' }], { tools: [tool] });
    tapHook(agent.hooks.beforeToolCall, 'policy', () => askAlways);
    await agent.prompt('clean').result();
    expect(calls).toHaveLength(0);
    expect(JSON.stringify(model.requests[1]!.messages.at(-1))).toContain("needs a person's approval (rm deletes files) and nobody can be asked here");
  });

  it('a block before the ask wins: nobody is asked', async () => {
    const { tool, calls } = recordingTool('rm');
    const { approvals, asked } = broker(() => ({ action: 'approve' }));
    const { agent } = scripted([{ toolCalls: [{ name: 'rm', arguments: {} }] }, { text: 'ok' }], { tools: [tool], approvals });
    tapHook(agent.hooks.beforeToolCall, 'gate', () => ({ block: true, reason: 'read-only' }), { stage: 1000 });
    tapHook(agent.hooks.beforeToolCall, 'policy', () => askAlways, { stage: 1100 });
    await agent.prompt('clean').result();
    expect(asked).toHaveLength(0);
    expect(calls).toHaveLength(0);
  });

  it('abort while waiting cancels the wait and the call never runs', async () => {
    const { tool, calls } = recordingTool('rm');
    const waiting = deferred();
    const { approvals } = broker((_request, signal) => {
      waiting.resolve();
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    });
    const { agent } = scripted([{ toolCalls: [{ name: 'rm', arguments: {} }] }, { text: 'ok' }], { tools: [tool], approvals });
    tapHook(agent.hooks.beforeToolCall, 'policy', () => askAlways);
    const stream = agent.prompt('clean');
    const done = (async () => {
      for await (const _event of stream);
      return stream.result();
    })();
    await waiting.promise;
    agent.abort();
    expect((await done).status).toBe('aborted');
    expect(calls).toHaveLength(0);
    const result = agent.messages.find((message) => message.role === 'toolResult');
    expect(JSON.stringify(result)).toContain('the run was aborted');
  });
});

describe('a run restored while its calls waited for an approval', () => {
  it('prompt([]) runs the pending calls (asking again), then calls the model: it is never asked for the calls again', async () => {
    const { tool, calls } = recordingTool('rm');
    const assistant = {
      role: 'assistant',
      content: [{ type: 'toolCall', id: 'c1', name: 'rm', arguments: { path: 'a' } }],
      model: 'test',
      usage: zeroUsage(),
      stopReason: 'toolUse',
      timestamp: 2,
    };
    const stored = [{ role: 'user', content: 'clean', timestamp: 1 }, assistant] as Message[];
    const metadata = buildMetadata({ model: 'faux/test', usage: zeroUsage(), messages: stored });
    const { approvals, asked } = broker(() => ({ action: 'approve' }));
    const { agent, model } = scripted([{ text: 'cleaned' }], { tools: [tool], approvals });
    tapHook(agent.hooks.beforeToolCall, 'policy', () => askAlways);
    expect(() => agent.restoreParts(metadata, stored)).toThrow(/no tool result/);
    agent.restoreParts(metadata, stored, { pendingToolCalls: true });
    expect(() => agent.prompt('something else')).toThrow(/no results yet/);
    const result = await agent.prompt([]).result();
    expect(result.status).toBe('completed');
    expect(asked).toHaveLength(1);
    expect(calls).toEqual([{ path: 'a' }]);
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'toolResult']);
  });
});
