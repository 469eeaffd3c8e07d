/** The pre-compaction memory flush: a silent turn on a copy of the conversation, under the kernel's policy, best effort. */
import { describe, expect, it } from 'vitest';
import { Agent, createKernel, definePlugin, type AgentTool, type Kernel } from '../../../core/index.js';
import { createFauxStreamFn, type FauxResponse } from '../../../plugins/faux/index.js';
import { MEMORY_FLUSH_PROMPT, describeMemoryFlush, runMemoryFlush } from '../../../plugins/claw-gateway/memory-flush.js';
import { tapPlanGate, type PlanState } from '../../../plugins/plan/index.js';

function memoryTool() {
  const saved: string[] = [];
  const tool: AgentTool = {
    name: 'memory_write',
    description: 'saves a fact',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    execute: async (args) => {
      saved.push(String((args as { text: string }).text));
      return { content: [{ type: 'text', text: 'saved' }] };
    },
  };
  return { tool, saved };
}

async function setup(flush: FauxResponse[], kernel?: Kernel) {
  const model = createFauxStreamFn({ responses: [{ text: 'noted' }, ...flush] });
  const source = new Agent(model, { model: 'faux/test' });
  await source.prompt('my name is Ada and the repo is ~/src/xdog').result();
  return { model, source, kernel: kernel ?? (await createKernel({ plugins: [] })) };
}

describe('runMemoryFlush', () => {
  it('runs one silent turn with only memory_write, leaving the conversation untouched', async () => {
    const { tool, saved } = memoryTool();
    const { model, source, kernel } = await setup([{ toolCalls: [{ name: 'memory_write', arguments: { text: 'user: Ada' } }] }, { text: 'saved one fact' }]);
    const before = source.messages;
    const outcome = await runMemoryFlush({ kernel, streamFn: model, source, tool });
    expect(outcome).toMatchObject({ status: 'completed', saved: 1, refused: [] });
    expect(describeMemoryFlush(outcome)).toBe('memory flush completed: 1 memory_write call saved');
    expect(outcome.usage).toHaveLength(2);
    expect(saved).toEqual(['user: Ada']);
    expect(source.messages).toEqual(before);
    // The flush request carries the whole conversation, the flush prompt, and no other tool.
    const request = model.requests[1]!;
    expect(request.tools.map((definition) => definition.name)).toEqual(['memory_write']);
    expect(request.messages.at(-1)).toMatchObject({ role: 'user', content: MEMORY_FLUSH_PROMPT });
    expect(request.messages[0]).toMatchObject({ content: 'my name is Ada and the repo is ~/src/xdog' });
  });

  it('still passes the host policy taps', async () => {
    const { tool, saved } = memoryTool();
    const policy = definePlugin({ name: 'deny-memory', hooks: { beforeToolCall: async () => ({ block: true as const, reason: 'memory is read-only here' }) } });
    const { model, source, kernel } = await setup([{ toolCalls: [{ name: 'memory_write', arguments: { text: 'x' } }] }, { text: 'could not save' }], await createKernel({ plugins: [policy] }));
    const outcome = await runMemoryFlush({ kernel, streamFn: model, source, tool });
    expect(outcome).toMatchObject({ status: 'completed', saved: 0, refused: [expect.stringContaining('memory is read-only here')] });
    expect(describeMemoryFlush(outcome)).toMatch(/^memory flush completed: 0 memory_write calls saved, 1 refused or failed \(.*memory is read-only here.*\)$/);
    expect(saved).toEqual([]);
    expect(JSON.stringify(model.requests[2]!.messages.at(-1))).toContain('memory is read-only here');
  });

  it('stops a model that keeps calling tools, and reports a failing model without throwing', async () => {
    const { tool, saved } = memoryTool();
    const call = { toolCalls: [{ name: 'memory_write', arguments: { text: 'again' } }] };
    const looping = await setup([call, call, call, call, call, call]);
    const outcome = await runMemoryFlush({ kernel: looping.kernel, streamFn: looping.model, source: looping.source, tool });
    expect(outcome.status).toBe('aborted');
    expect(saved.length).toBeLessThanOrEqual(4);

    const failing = await setup([{ error: 'server error (HTTP 500)' }]);
    expect(await runMemoryFlush({ kernel: failing.kernel, streamFn: failing.model, source: failing.source, tool })).toMatchObject({ status: 'error', saved: 0, refused: [] });
  });

  it('stays allowed in plan mode, where the same memory_write in an ordinary turn is blocked', async () => {
    const { tool, saved } = memoryTool();
    const planning: PlanState = { version: 1, status: 'planning', objective: 'refactor', revision: 1, steps: [], updatedAt: 0 };
    const plan = definePlugin({ name: 'plan-gate', apply: (kernel) => void kernel.hooks.agentCreated.tap('plan-gate', (agent) => void tapPlanGate(agent.hooks, async () => planning, undefined)) });
    const kernel = await createKernel({ plugins: [plan] });
    const call = { toolCalls: [{ name: 'memory_write', arguments: { text: 'user: Ada' } }] };
    const { model, source } = await setup([call, { text: 'saved' }], kernel);
    expect(await runMemoryFlush({ kernel, streamFn: model, source, tool })).toMatchObject({ status: 'completed', saved: 1, refused: [] });
    expect(saved).toEqual(['user: Ada']);

    const ordinary = kernel.createAgent(createFauxStreamFn({ responses: [call, { text: 'blocked' }] }), { model: 'faux/test' }, { tools: [tool] });
    const result = await ordinary.prompt('remember this').result();
    expect(JSON.stringify(result.newMessages)).toContain('plan mode: \\"memory_write\\" is not allowed while planning');
    expect(saved).toEqual(['user: Ada']);
  });
});
