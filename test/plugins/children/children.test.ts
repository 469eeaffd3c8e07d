import { describe, expect, it } from 'vitest';
import { createBuiltinTools } from '../../../plugins/tools/index.js';
import { createFauxStreamFn } from '../../../plugins/faux/index.js';
import { AgentToolArgsSchema, MemoryChildRuntime, createAgentTool, createSdkChildHost, inheritedContext, parseChildPresets, resolveChildSpec } from '../../../plugins/children/index.js';
import { assistant, toolResult, user } from '../sessions/helpers.js';
import { tempDir } from '../../support/temp.js';

/** Children whose model calls `current_time` forever, unless the task says "stop". */
function runtime(presets = {}) {
  const stream = createFauxStreamFn({
    responses: (request) => {
      const first = request.messages.find((message) => message.role === 'user')!;
      if (String(first.content).includes('stop')) return { text: 'stopped' };
      if (String(first.content).includes('delegate')) return { toolCalls: [{ name: 'agent', arguments: { action: 'list' } }] };
      return { toolCalls: [{ name: 'current_time', arguments: {} }] };
    },
  });
  const parentTools = createBuiltinTools({ cwd: tempDir() });
  const children: MemoryChildRuntime = new MemoryChildRuntime(createSdkChildHost({ streamFn: stream, model: 'faux/test', parentTools: () => [...parentTools, createAgentTool(children)], presets }));
  return { children, stream };
}

const spawn = (task: string, config: Record<string, unknown> = {}) => resolveChildSpec({ action: 'spawn', task, config }, {});

describe('child agents (in memory)', () => {
  it('refuses a 4th concurrent child and a raised cap; a never-stopping child ends at 16 model calls', async () => {
    const { children, stream } = runtime();
    const started = [children.spawn(spawn('loop 1')), children.spawn(spawn('loop 2')), children.spawn(spawn('loop 3'))];
    expect(() => children.spawn(spawn('loop 4'))).toThrow(/3 children are already running, the limit/);
    expect(() => spawn('x', { max_model_calls: 20 })).toThrow(/max_model_calls 20 is over the child limit of 16/);
    expect(() => spawn('x', { max_tokens: 32_001 })).toThrow(/over the child limit of 32000/);
    expect(() => spawn('x', { timeout: 121 })).toThrow(/timeout 121 is over the child limit of 120/);
    const records = await children.wait(started.map((record) => record.id));
    for (const record of records) expect(record).toMatchObject({ status: 'limit', modelCalls: 16, error: 'the child used up its 16 model calls' });
    expect(stream.requests).toHaveLength(48);
    await children.closeAll();
  });

  it('lowers caps, never delegates, and refuses spawn-only fields in control actions', async () => {
    const { children } = runtime();
    const low = children.spawn(spawn('loop', { max_model_calls: 2 }));
    const delegating = children.spawn(spawn('delegate'));
    const [lowDone, delegated] = await children.wait([low.id, delegating.id]);
    expect(lowDone).toMatchObject({ status: 'limit', modelCalls: 2 });
    // The child has no `agent` tool: its call fails as unavailable and it goes on to its limit.
    expect(delegated!.modelCalls).toBe(16);
    const parsed = AgentToolArgsSchema.safeParse({ action: 'cancel', id: low.id, task: 'sneak' });
    expect(parsed.success).toBe(false);
    const tool = createAgentTool(children);
    const refused = await tool.execute({ action: 'steer', id: low.id, text: 'x', config: { max_model_calls: 1 } }, { toolCallId: 't', signal: new AbortController().signal, onUpdate: () => undefined, toolCtx: {} });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/Unrecognized key.*config/);
    await children.closeAll();
  });

  it('resolves presets under the caps and fails a bad catalog whole', () => {
    const presets = parseChildPresets({ scout: { label: 'scout', max_model_calls: 4, instructions: 'be brief' } });
    expect(resolveChildSpec({ action: 'spawn', task: 't', config: { preset: 'scout', max_model_calls: 3 } }, presets)).toMatchObject({ label: 'scout', maxModelCalls: 3, instructions: 'be brief', access: 'read-only' });
    expect(() => resolveChildSpec({ action: 'spawn', task: 't', config: { preset: 'nope' } }, presets)).toThrow(/no child preset named "nope"/);
    expect(() => parseChildPresets({ scout: { max_model_calls: 4 }, bad: { budget: 1 } })).toThrow(/child_presets.bad: Unrecognized key/);
    expect(() => parseChildPresets(Object.fromEntries(Array.from({ length: 33 }, (_, index) => [`p${index}`, {}])))).toThrow(/33 entries, over the limit of 32/);
  });

  it('reports a failed end observer instead of swallowing it, and the child still ends', async () => {
    const stream = createFauxStreamFn({ responses: () => ({ text: 'done' }) });
    const failures: string[] = [];
    const children = new MemoryChildRuntime(createSdkChildHost({ streamFn: stream, model: 'faux/test', parentTools: () => [] }), {
      ended: async () => {
        throw new Error('disk full');
      },
      endFailed: (id, error) => failures.push(`${id}: ${(error as Error).message}`),
    });
    const child = children.spawn(spawn('stop'));
    const [ended] = await children.wait([child.id]);
    expect(ended).toMatchObject({ status: 'completed', result: 'done' });
    expect(failures).toEqual([`${child.id}: disk full`]);
    await children.closeAll();
  });

  it('inherits the conversation up to its last complete tool exchange, as a copy, and refuses one over the bound', () => {
    const spec = resolveChildSpec({ action: 'spawn', task: 't', inherit_context: true }, {});
    const history = [user('first'), assistant('reading', [{ id: 'a', name: 'read' }]), toolResult('a', 'read', 'r'), assistant('ok'), user('now delegate'), assistant('', [{ id: 'b', name: 'agent' }, { id: 'c', name: 'read' }]), toolResult('c', 'read', 'r')];
    const inherited = inheritedContext(history, spec);
    expect(inherited).toEqual(history.slice(0, 5));
    expect(inherited[0]).not.toBe(history[0]);
    // The bound is the smaller of 8,000 tokens and half the child's token cap; over it the spawn is refused, never clipped.
    const long = [user('x'.repeat(40_000))];
    expect(() => inheritedContext(long, spec)).toThrow(/the parent's conversation is about \d+ tokens, over the 8000 a child may inherit/);
    expect(() => inheritedContext([user('y'.repeat(8_000))], { maxTokens: 2_000 })).toThrow(/over the 1000 a child may inherit/);
  });
});
