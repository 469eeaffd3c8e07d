/**
 * The `todos` plugin: the model's own task list, kept with `todo_write` and
 * read with `todo_read` (docs/todos.md). In a claw group the list is the
 * session's row in the store (it survives restarts and moves with the group
 * between workers); in any other kernel (`xdog agent chat`) it lives in
 * memory for the kernel's life. Either way a compaction summary keeps the
 * open items. The gateway serves it as `todos.get` / `todos.changed`.
 */
import { ClockToken, ContainerModule, ErrorCodes, ToolContribution, XdogError, definePlugin, token, type Kernel } from '../../core/index.js';
import { CLAW_SESSION_TOOL_CTX, ClawGroupToken, GatewayServiceContribution, turnWritesOf } from '../claw-gateway/tokens.js';
import { carryTodosAcrossCompaction } from './compaction.js';
import { createTodoService } from './service.js';
import { activeSessionOfGroup, sessionTodoStore } from './session-todos.js';
import { MemoryTodoStore, createTodoTools, type TodoStore } from './tools.js';

export { TODO_STATUSES, checkTodoItems, openTodos, openTodosNote, renderTodos, todoSummary, type TodoItem, type TodoList, type TodoStatus } from './state.js';
export { MemoryTodoStore, TODO_TOOL_NAMES, createTodoTools, type TodoStore } from './tools.js';
export { loadSessionTodos, saveSessionTodos, sessionTodoStore, type TodoStaging } from './session-todos.js';
export { TODOS_CAPABILITY, TodoNotifications, createTodoService, todoView, type TodoView } from './service.js';
export { carryTodosAcrossCompaction } from './compaction.js';

/** The in-memory list of a kernel outside claw (one chat), for hosts that hand it on (children with inherit_todos). */
export const KernelTodosToken = token<TodoStore>('todos.KernelTodos');

export default definePlugin({
  name: 'todos',
  provides: { tools: ['todo_write', 'todo_read'] },
  module: new ContainerModule(({ bind }) => {
    bind(GatewayServiceContribution).toConstantValue(createTodoService());
  }),
  apply(kernel: Kernel) {
    if (!kernel.isBound(ClawGroupToken)) {
      const todos = new MemoryTodoStore({ clock: kernel.get(ClockToken) });
      const [write, read] = createTodoTools(todos);
      kernel.container.bind(KernelTodosToken).toConstantValue(todos);
      kernel.container.bind(ToolContribution).toConstantValue(write);
      kernel.container.bind(ToolContribution).toConstantValue(read);
      kernel.hooks.agentCreated.tap('todos', (agent) => void carryTodosAcrossCompaction(agent, write, async () => todos));
      return;
    }
    const group = kernel.get(ClawGroupToken);
    const [write, read] = createTodoTools((toolCtx, toolCallId) => {
      const sessionId = toolCtx[CLAW_SESSION_TOOL_CTX];
      if (typeof sessionId !== 'string') throw new XdogError(ErrorCodes.INVALID_STATE, 'this agent runs in no claw session, so it has no todo list', { hint: 'todo tools work in a group session' });
      // Saved with the tool result entry, in one transaction with the turn.
      const writes = turnWritesOf(toolCtx);
      return sessionTodoStore(group.store, sessionId, group.clock, writes ? { writes, toolCallId } : undefined);
    });
    kernel.container.bind(ToolContribution).toConstantValue(write);
    kernel.container.bind(ToolContribution).toConstantValue(read);
    // A group compacts only its active session's conversation.
    kernel.hooks.agentCreated.tap('todos', (agent) => void carryTodosAcrossCompaction(agent, write, async () => sessionTodoStore(group.store, await activeSessionOfGroup(group.store, group.name), group.clock)));
  },
});
