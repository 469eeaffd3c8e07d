/**
 * A claw session's todo list commits with the tool result entry of the
 * todo_write call that changed it: one transaction with the turn, so a
 * failed write leaves neither the result nor the new list.
 */
import { expect, it } from 'vitest';
import { SystemClockImpl } from '../../../core/index.js';
import { TurnWrites } from '../../../plugins/claw-gateway/index.js';
import type { SessionStore } from '../../../plugins/sessions/index.js';
import { createTodoTools, loadSessionTodos, sessionTodoStore } from '../../../plugins/todos/index.js';
import { describeStores } from '../../support/stores.js';
import { openTestStoreOn, sessionWith } from '../sessions/helpers.js';

const ITEMS = [{ text: 'write the test', status: 'in_progress' }];

function resultEntry(toolCallId: string) {
  return { kind: 'message' as const, payload: { message: { role: 'toolResult' as const, toolCallId, toolName: 'todo_write', content: [{ type: 'text' as const, text: 'saved' }], isError: false, timestamp: 1 } } };
}

async function writeStaged(store: SessionStore, sessionId: string, writes: TurnWrites, toolCallId: string): Promise<unknown> {
  const [write] = createTodoTools(() => sessionTodoStore(store, sessionId, new SystemClockImpl(), { writes, toolCallId }));
  return write.execute({ todos: ITEMS }, { toolCallId, signal: new AbortController().signal, onUpdate: () => undefined, toolCtx: {} });
}

describeStores('todos with the turn', (kind) => {
  it('stages the list with the call and commits it with the tool result entry', async () => {
    const { store } = await openTestStoreOn(kind);
    const sessionId = await sessionWith(store, []);
    const writes = new TurnWrites();
    const result = (await writeStaged(store, sessionId, writes, 'call-1')) as { details: { revision: number } };
    expect(result.details.revision).toBe(1);
    // Nothing is saved before the result entry is.
    expect((await loadSessionTodos(store, sessionId)).revision).toBe(0);
    const staged = writes.take('call-1');
    await store.append(sessionId, [resultEntry('call-1')], { within: async (sql) => { for (const write of staged) await write(sql); } });
    expect(await loadSessionTodos(store, sessionId)).toMatchObject({ items: ITEMS, revision: 1 });
    expect((await store.path(sessionId)).length).toBe(1);
  });

  it('a failed write of the result leaves neither the entry nor the new list', async () => {
    const { store } = await openTestStoreOn(kind);
    const sessionId = await sessionWith(store, []);
    const writes = new TurnWrites();
    await writeStaged(store, sessionId, writes, 'call-2');
    const staged = writes.take('call-2');
    const failing = store.append(sessionId, [resultEntry('call-2')], {
      within: async (sql) => {
        for (const write of staged) await write(sql);
        throw new Error('the disk is full');
      },
    });
    await expect(failing).rejects.toThrow('the disk is full');
    expect((await loadSessionTodos(store, sessionId)).revision).toBe(0);
    expect(await store.path(sessionId)).toEqual([]);
  });
});
