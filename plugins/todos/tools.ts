/**
 * `todo_write` and `todo_read`: the model keeps its own task list. They work
 * on any TodoStore, so an SDK Agent or `xdog agent chat` uses them in memory
 * (MemoryTodoStore) and a claw group on its session's row in the store.
 * `todo_write` replaces the whole list after checking it; a list over a
 * limit or with an unknown status is a tool error and nothing is saved.
 */
import { LIMITS, SystemClockImpl, describeError, type AgentTool, type AgentToolResult, type Clock, type JsonSchema } from '../../core/index.js';
import { checkTodoItems, EMPTY_TODOS, renderTodos, todoSummary, TODO_STATUSES, type TodoItem, type TodoList } from './state.js';

/** Where a todo list lives. */
export interface TodoStore {
  read(): Promise<TodoList>;
  /** Replaces the list (already checked) and returns it as saved. */
  write(items: TodoItem[]): Promise<TodoList>;
}

/** A list in memory: one per SDK agent or chat. */
export class MemoryTodoStore implements TodoStore {
  #list: TodoList;
  readonly #clock: Clock;

  constructor(options: { clock?: Clock; items?: readonly TodoItem[] } = {}) {
    this.#clock = options.clock ?? new SystemClockImpl();
    const items = options.items ? checkTodoItems(structuredClone(options.items)) : [];
    this.#list = items.length ? { items, revision: 1, updatedAt: this.#clock.now() } : EMPTY_TODOS;
  }

  async read(): Promise<TodoList> {
    return structuredClone(this.#list);
  }

  async write(items: TodoItem[]): Promise<TodoList> {
    this.#list = { items: structuredClone(items), revision: this.#list.revision + 1, updatedAt: this.#clock.now() };
    return structuredClone(this.#list);
  }
}

export const TODO_TOOL_NAMES = ['todo_write', 'todo_read'] as const;

// Plain JSON Schema without enum or size keywords: checkTodoItems gives the model errors that name the limit.
const WRITE_PARAMETERS: JsonSchema = {
  type: 'object',
  properties: {
    todos: {
      type: 'array',
      description: `The whole list, in order (it replaces the previous one); at most ${LIMITS.todoItems} items.`,
      items: {
        type: 'object',
        properties: {
          text: { type: 'string', description: `What to do, one line (at most ${LIMITS.todoItemBytes} bytes).` },
          status: { type: 'string', description: `${TODO_STATUSES.join(', ')}; at most one in_progress.` },
        },
        required: ['text', 'status'],
      },
    },
  },
  required: ['todos'],
  additionalProperties: false,
};

const READ_PARAMETERS: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };

function shown(list: TodoList): AgentToolResult {
  const summary = todoSummary(list.items);
  return { content: [{ type: 'text', text: summary ? `${summary}\n${renderTodos(list.items)}` : renderTodos(list.items) }], details: list };
}

function failed(error: unknown): AgentToolResult {
  return { content: [{ type: 'text', text: `Error: ${describeError(error)}` }], isError: true };
}

/** The tool pair on `store`, or on the store a getter answers for each call from its tool context (a claw session's). */
export function createTodoTools(store: TodoStore | ((toolCtx: Record<string, unknown>, toolCallId: string) => TodoStore)): [AgentTool, AgentTool] {
  const storeOf = typeof store === 'function' ? store : () => store;
  const write: AgentTool<Record<string, unknown>> = {
    name: 'todo_write',
    description:
      'Keep your task list for this session: send the whole list each time (it replaces the previous one), each item { text, status: pending | in_progress | done }, ' +
      'at most one in_progress. Use it for work of several steps; mark an item done as soon as it is.',
    parameters: WRITE_PARAMETERS,
    async execute(args, context) {
      try {
        return shown(await storeOf(context.toolCtx, context.toolCallId).write(checkTodoItems(args.todos)));
      } catch (error) {
        return failed(error);
      }
    },
  };
  const read: AgentTool<Record<string, unknown>> = {
    name: 'todo_read',
    description: 'Show your task list for this session (what todo_write saved last).',
    parameters: READ_PARAMETERS,
    async execute(_args, context) {
      try {
        return shown(await storeOf(context.toolCtx, context.toolCallId).read());
      } catch (error) {
        return failed(error);
      }
    },
  };
  return [write, read];
}
