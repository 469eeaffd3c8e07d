/**
 * The todo tools on their own (an SDK Agent, no gateway): todo_write replaces
 * the list after checking it against the limits (an over-limit list is a tool
 * error naming the limit and nothing is saved), todo_read shows it, the
 * summary line, a compaction that keeps the open items, and the list in a
 * real claw store (SQLite) with a corrupt row failing closed.
 */
import { describe, expect, it } from 'vitest';
import { LIMITS, summaryFromMessage, type AgentTool, type AgentToolResult } from '../../../core/index.js';
import type { SessionStore } from '../../../plugins/sessions/index.js';
import {
  MemoryTodoStore,
  carryTodosAcrossCompaction,
  checkTodoItems,
  createTodoTools,
  loadSessionTodos,
  saveSessionTodos,
  todoSummary,
  type TodoItem,
} from '../../../plugins/todos/index.js';
import { scripted } from '../../core/agent/helpers.js';
import { describeStores } from '../../support/stores.js';
import { openTestStoreOn } from '../sessions/helpers.js';

const ctx = { signal: new AbortController().signal, toolCtx: {} } as unknown as Parameters<AgentTool['execute']>[1];
const text = (result: AgentToolResult): string => result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
const items = (count: number, status: TodoItem['status'] = 'pending'): TodoItem[] => Array.from({ length: count }, (_, index) => ({ text: `step ${index + 1}`, status }));

describe('todo_write / todo_read', () => {
  it('replaces the whole list and reads it back, with a summary line', async () => {
    const [write, read] = createTodoTools(new MemoryTodoStore());
    expect(text(await read.execute({}, ctx))).toBe('(no todos)');
    const first = await write.execute({ todos: [{ text: 'read the notes', status: 'done' }, { text: 'rewrite them', status: 'in_progress' }, { text: 'ship', status: 'pending' }] }, ctx);
    expect(first.isError).toBeFalsy();
    expect(text(first)).toBe('todos 1/3 done · now: rewrite them\n1. [x] read the notes\n2. [>] rewrite them\n3. [ ] ship');
    await write.execute({ todos: [{ text: 'only this', status: 'pending' }] }, ctx);
    const shown = await read.execute({}, ctx);
    expect(text(shown)).toBe('todos 0/1 done · next: only this\n1. [ ] only this');
    expect(shown.details).toMatchObject({ items: [{ text: 'only this', status: 'pending' }], revision: 2 });
  });

  it.each([
    ['too many items', { todos: items(LIMITS.todoItems + 1) }, `the todo list has ${LIMITS.todoItems + 1} items, over the limit of ${LIMITS.todoItems} (todoItems); nothing was saved`],
    ['an over-size text', { todos: [{ text: 'x'.repeat(LIMITS.todoItemBytes + 1), status: 'pending' }] }, `todo 1's text is ${LIMITS.todoItemBytes + 1} bytes, over the limit of ${LIMITS.todoItemBytes} (todoItemBytes)`],
    ['an unknown status', { todos: [{ text: 'a', status: 'pending' }, { text: 'b', status: 'blocked' }] }, 'todo 2 has status "blocked": use pending, in_progress, done'],
    ['two items in progress', { todos: [{ text: 'a', status: 'in_progress' }, { text: 'b', status: 'in_progress' }] }, 'at most one todo may be in_progress'],
    ['an unknown field', { todos: [{ text: 'a', status: 'done', owner: 'me' }] }, 'todo 1 has unknown field "owner"'],
  ])('refuses %s as a tool error and keeps the old list', async (_what, args, message) => {
    const [write, read] = createTodoTools(new MemoryTodoStore({ items: [{ text: 'keep me', status: 'pending' }] }));
    const result = await write.execute(args, ctx);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(message);
    expect(text(await read.execute({}, ctx))).toBe('todos 0/1 done · next: keep me\n1. [ ] keep me');
  });

  it('accepts a list exactly at the limits', () => {
    const full = items(LIMITS.todoItems);
    full[0] = { text: 'é'.repeat(LIMITS.todoItemBytes / 2), status: 'in_progress' };
    expect(checkTodoItems(full)).toHaveLength(LIMITS.todoItems);
  });

  it('summarizes as done/total with the item in progress, the next one, or nothing', () => {
    expect(todoSummary([])).toBeNull();
    expect(todoSummary([...items(2, 'done'), { text: 'now\nthis', status: 'in_progress' }, ...items(2)])).toBe('todos 2/5 done · now: now this');
    expect(todoSummary(items(2, 'done'))).toBe('todos 2/2 done');
  });
});

describe('todos across a compaction (SDK agent)', () => {
  it('ends the summary with the open items, not the done ones, and keeps the list', async () => {
    const long = (label: string) => `${label} ${'lorem ipsum '.repeat(40)}`;
    const todos = new MemoryTodoStore();
    const tools = createTodoTools(todos);
    const { agent } = scripted(
      [
        { toolCalls: [{ name: 'todo_write', arguments: { todos: [{ text: 'read the notes', status: 'done' }, { text: 'rewrite them', status: 'in_progress' }, { text: 'ship', status: 'pending' }] } }] },
        { text: long('answer one') },
        { text: long('answer two') },
        { text: long('answer three') },
        { text: 'SUMMARY' },
      ],
      { tools, compaction: { keepRecentTokens: 50 } },
    );
    carryTodosAcrossCompaction(agent, tools[0], async () => todos);
    for (const prompt of [long('first'), long('second'), long('third')]) await agent.prompt(prompt).result();
    const result = await agent.compact();
    expect(result).toMatchObject({ compacted: true });
    const summary = summaryFromMessage(agent.messages[0])!;
    expect(summary).toBe('SUMMARY\n\nOpen todos (2 of 3; the full list is kept, todo_read shows it):\n- [>] rewrite them\n- [ ] ship');
    expect((await todos.read()).items).toHaveLength(3);
  });
});

describeStores('todos in the claw store', (kind) => {
  async function session(): Promise<{ store: SessionStore; sessionId: string }> {
    const { store } = await openTestStoreOn(kind);
    await store.ensureGroup('main');
    return { store, sessionId: (await store.createSession('main', { model: 'faux/demo' })).id };
  }

  it('starts empty, replaces the list in one row and counts the writes', async () => {
    const { store, sessionId } = await session();
    expect(await loadSessionTodos(store, sessionId)).toEqual({ items: [], revision: 0, updatedAt: null });
    await saveSessionTodos(store, sessionId, [{ text: 'a', status: 'pending' }], 10);
    const second = await saveSessionTodos(store, sessionId, [{ text: 'b', status: 'done' }], 20);
    expect(second).toEqual({ items: [{ text: 'b', status: 'done' }], revision: 2, updatedAt: 20 });
    expect(await loadSessionTodos(store, sessionId)).toEqual(second);
  });

  it('fails closed on a row that does not decode, naming the session', async () => {
    const { store, sessionId } = await session();
    await saveSessionTodos(store, sessionId, [{ text: 'a', status: 'pending' }], 10);
    await store.withTransaction((sql) => sql.run('UPDATE claw_todos SET items = :items WHERE session_id = :id', { id: sessionId, items: '[{"text":"a","status":"later"}]' }));
    await expect(loadSessionTodos(store, sessionId)).rejects.toMatchObject({ code: 'STORE_CORRUPT', message: expect.stringContaining(`the todo list of session ${sessionId} is corrupt`) });
  });
});
