/** The memory tools and the plugin's wiring: which kernels offer them, and what they answer. */
import { expect, it } from 'vitest';
import { ContainerModule, ToolContribution, createKernel, type AgentTool, type AgentToolResult } from '../../../core/index.js';
import { ClawGroupToken, GatewayServiceContribution, type ClawGroupContext } from '../../../plugins/claw-gateway/index.js';
import memoryPlugin, { createMemoryTools } from '../../../plugins/memory/index.js';
import { describeStores, type StoreKind } from '../../support/stores.js';
import { openTestStoreOn } from '../sessions/helpers.js';

async function groupContext(kind: StoreKind, name: string): Promise<ClawGroupContext> {
  const { store, dataSource, clock } = await openTestStoreOn(kind);
  await store.ensureGroup(name);
  return { name, workspace: '/tmp', store, dataSource, clock };
}

function call(tools: AgentTool[], name: string, args: unknown, toolCtx: Record<string, unknown> = {}): Promise<AgentToolResult> {
  const tool = tools.find((candidate) => candidate.name === name)!;
  return tool.execute(args, { toolCallId: 'c1', signal: new AbortController().signal, onUpdate: () => undefined, toolCtx });
}

const textOf = (result: AgentToolResult) => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

describeStores('memory tools', (kind) => {
  it('outside a claw group, every tool answers a tool error saying memory needs one', async () => {
    const tools = createMemoryTools(() => undefined);
    expect(tools.map((tool) => tool.name)).toEqual(['memory_write', 'memory_search', 'memory_forget']);
    for (const [name, args] of [['memory_write', { text: 'x' }], ['memory_search', { query: 'x' }], ['memory_forget', { id: 1 }]] as const) {
      const result = await call(tools, name, args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^Error: memory needs a claw group/);
    }
  });

  it('writes with the session from the tool context, searches and forgets in its group', async () => {
    const context = await groupContext(kind, 'main');
    const tools = createMemoryTools(() => context);
    const written = await call(tools, 'memory_write', { text: 'Builds run on node 20', tags: ['ci'] }, { claw_session_id: 'session-a' });
    expect(written.isError).toBeUndefined();
    expect(textOf(written)).toBe('Saved as memory #1.');
    expect(textOf(await call(tools, 'memory_write', { text: 'Builds run on node 20' }))).toBe('Already saved as memory #1.');

    const found = await call(tools, 'memory_search', { query: 'node builds' });
    expect(textOf(found)).toMatch(/^#1 \d{4}-\d\d-\d\d \[ci\] Builds run on node 20$/);
    expect(found.details).toEqual({ results: [expect.objectContaining({ id: 1, sessionId: 'session-a', source: 'tool', phrase: false })] });

    expect(textOf(await call(tools, 'memory_forget', { id: 1 }))).toBe('Forgot memory #1.');
    expect(textOf(await call(tools, 'memory_search', { query: 'node builds' }))).toBe('No memory matches "node builds".');
  });

  it('answers limits and unknown ids as error results the model can act on', async () => {
    const context = await groupContext(kind, 'main');
    const tools = createMemoryTools(() => context);
    const big = await call(tools, 'memory_write', { text: 'x'.repeat(5000) });
    expect(big.isError).toBe(true);
    expect(textOf(big)).toBe('Error: the memory has 5000 characters, more than the 4000 one memory may hold (save the essential fact, or split it into several memories)');
    const missing = await call(tools, 'memory_forget', { id: 42 });
    expect(textOf(missing)).toMatch(/^Error: group main has no memory 42 \(/);
    expect(textOf(await call(tools, 'memory_search', { query: 'x', limit: 500 }))).toMatch(/^Error: the search limit is 500, more than the 25 allowed/);
  });
});

describeStores('memory plugin', (kind) => {
  it('offers its tools only in a kernel that serves a claw group, and its service everywhere', async () => {
    const plain = await createKernel({ plugins: [memoryPlugin] });
    expect(plain.getAll(ToolContribution).map((tool) => tool.name)).toEqual([]);
    expect(plain.getAll(GatewayServiceContribution).map((service) => service.name)).toEqual(['memory']);

    const context = await groupContext(kind, 'main');
    const grouped = await createKernel({ plugins: [memoryPlugin], overrides: [new ContainerModule(({ bind }) => void bind(ClawGroupToken).toConstantValue(context))] });
    const tools = grouped.getAll(ToolContribution);
    expect(tools.map((tool) => tool.name)).toEqual(['memory_write', 'memory_search', 'memory_forget']);
    await call(tools, 'memory_write', { text: 'kernel-wired fact' });
    expect(textOf(await call(tools, 'memory_search', { query: 'kernel wired' }))).toContain('kernel-wired fact');
    await plain.close();
    await grouped.close();
  });
});
