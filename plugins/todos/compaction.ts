/**
 * Carries the open todos across a compaction: the summary that replaces the
 * earlier conversation ends with them, so the model still sees what is left
 * to do. The list itself stays where it is (the store or the chat's memory).
 */
import { tapHook, type Agent, type AgentTool, type Disposer } from '../../core/index.js';
import { openTodosNote } from './state.js';
import type { TodoStore } from './tools.js';

/** Taps `agent` so its compaction summaries keep the open items of `store()`, while it has `write` among its tools. */
export function carryTodosAcrossCompaction(agent: Agent, write: AgentTool, store: () => Promise<TodoStore | undefined>): Disposer {
  return tapHook(agent.hooks.compactionSummary, 'todos', async (summary: string) => {
    if (!agent.localTools.includes(write)) return summary;
    const todos = await store();
    const note = todos ? openTodosNote((await todos.read()).items) : null;
    return note ? `${summary}\n\n${note}` : summary;
  });
}
