/**
 * Todos and child agents: a child never gets the parent's todo tools; with
 * inherit_todos it gets its own tools on a copy of the parent's list (its
 * writes leave the parent's alone), and a host that cannot read the
 * parent's list refuses the spawn instead of starting the child without it.
 */
import { describe, expect, it } from 'vitest';
import type { AgentTool, AgentToolResult } from '../../../core/index.js';
import { childPrompt, childTools, createAgentTool, resolveChildSpec, type ChildRuntime } from '../../../plugins/children/index.js';
import { MemoryTodoStore, createTodoTools } from '../../../plugins/todos/index.js';

const ctx = { signal: new AbortController().signal, toolCtx: {} } as unknown as Parameters<AgentTool['execute']>[1];
const text = (result: AgentToolResult): string => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
const PARENT = [{ text: 'read the notes', status: 'done' as const }, { text: 'rewrite them', status: 'in_progress' as const }];

describe('todos in children', () => {
  const parentStore = new MemoryTodoStore({ items: PARENT });
  const parentTools = createTodoTools(parentStore);

  it('gives a child none of the parent\'s todo tools without inherit_todos', () => {
    const spec = resolveChildSpec({ action: 'spawn', task: 'look', access: 'inherit' }, {});
    expect(spec.inheritTodos).toBe(false);
    expect(childTools(spec, parentTools).map((tool) => tool.name)).toEqual([]);
    expect(childPrompt(spec)).not.toContain('todo');
  });

  it('gives a child with inherit_todos its own tools on a copy of the list', async () => {
    const spec = { ...resolveChildSpec({ action: 'spawn', task: 'look', inherit_todos: true }, {}), todos: (await parentStore.read()).items };
    const tools = childTools(spec, parentTools);
    expect(tools.map((tool) => tool.name)).toEqual(['todo_write', 'todo_read']);
    expect(tools).not.toContain(parentTools[0]);
    expect(childPrompt(spec)).toContain('1. [x] read the notes\n2. [>] rewrite them');
    expect(text(await tools[1]!.execute({}, ctx))).toContain('todos 1/2 done · now: rewrite them');
    await tools[0]!.execute({ todos: [{ text: 'child work', status: 'pending' }] }, ctx);
    expect((await parentStore.read()).items).toEqual(PARENT);
  });

  it('refuses inherit_todos on a host that cannot read the parent\'s list', async () => {
    const runtime = { presets: {}, spawn: () => ({ id: 'c1' }) } as unknown as ChildRuntime;
    const refused = await createAgentTool(runtime).execute({ action: 'spawn', task: 'look', inherit_todos: true }, ctx);
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("this host cannot give a child its parent's todo list");
    let spawned: unknown;
    const host = { presets: {}, spawn: (spec: unknown) => ((spawned = spec), { id: 'c2' }) } as unknown as ChildRuntime;
    await createAgentTool(host, { todosOf: async () => PARENT }).execute({ action: 'spawn', task: 'look', inherit_todos: true }, ctx);
    expect(spawned).toMatchObject({ inheritTodos: true, todos: PARENT });
  });
});
