/**
 * A session's todo list: the model's own task list, kept with `todo_write`
 * (which replaces the whole list) and read with `todo_read`. Pure: checking
 * a list against the limits, decoding a stored one, and the text forms the
 * model, the CLI and the TUI show. Over a limit is an error, never clipped.
 */
import { ErrorCodes, LIMITS, XdogError } from '../../core/index.js';

export const TODO_STATUSES = ['pending', 'in_progress', 'done'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface TodoItem {
  text: string;
  status: TodoStatus;
}

/** The list of one session (revision 0 and no items before the first write). */
export interface TodoList {
  items: TodoItem[];
  /** Counts writes: 1 after the first. */
  revision: number;
  /** Epoch ms of the last write; null before the first. */
  updatedAt: number | null;
}

export const EMPTY_TODOS: TodoList = Object.freeze({ items: [], revision: 0, updatedAt: null }) as TodoList;

const isStatus = (value: unknown): value is TodoStatus => typeof value === 'string' && (TODO_STATUSES as readonly string[]).includes(value);

function invalid(message: string): XdogError {
  return new XdogError(ErrorCodes.INVALID_ARGUMENT, message, { hint: 'send the whole list again: [{ "text": "...", "status": "pending" | "in_progress" | "done" }]' });
}

/** Checks a whole list as the model sent it: its size, each item's text and status, at most one in progress. */
export function checkTodoItems(raw: unknown): TodoItem[] {
  if (!Array.isArray(raw)) throw invalid('todos must be an array of { text, status } items');
  if (raw.length > LIMITS.todoItems) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the todo list has ${raw.length} items, over the limit of ${LIMITS.todoItems} (todoItems); nothing was saved`, {
      hint: `keep at most ${LIMITS.todoItems} items: drop done ones or merge small steps`,
    });
  }
  const items = raw.map((item: unknown, index): TodoItem => {
    const at = `todo ${index + 1}`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw invalid(`${at} must be an object { text, status }`);
    const { text, status, ...rest } = item as Record<string, unknown>;
    const extra = Object.keys(rest);
    if (extra.length) throw invalid(`${at} has unknown field "${extra[0]}" (only text and status)`);
    if (typeof text !== 'string' || text.trim().length === 0) throw invalid(`${at} needs a non-empty text`);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > LIMITS.todoItemBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `${at}'s text is ${bytes} bytes, over the limit of ${LIMITS.todoItemBytes} (todoItemBytes); nothing was saved`, {
        hint: 'shorten it, or split it into several items',
      });
    }
    if (!isStatus(status)) throw invalid(`${at} has status ${JSON.stringify(status)}: use ${TODO_STATUSES.join(', ')}`);
    return { text, status };
  });
  if (items.filter((item) => item.status === 'in_progress').length > 1) throw invalid('at most one todo may be in_progress; mark the others pending or done');
  return items;
}

/** A stored list; anything that does not check is STORE_CORRUPT (never shown as empty). */
export function decodeTodoItems(stored: string, sessionId: string): TodoItem[] {
  try {
    return checkTodoItems(JSON.parse(stored));
  } catch (error) {
    throw new XdogError(ErrorCodes.STORE_CORRUPT, `the todo list of session ${sessionId} is corrupt (${(error as Error).message})`, {
      cause: error,
      hint: 'the model can replace it with todo_write; otherwise restore the claw store from a backup',
    });
  }
}

/** The items not done yet, in order. */
export function openTodos(items: readonly TodoItem[]): TodoItem[] {
  return items.filter((item) => item.status !== 'done');
}

/** One line for the TUI and `claw status`: "todos 2/5 done · now: …"; null for an empty list. */
export function todoSummary(items: readonly TodoItem[]): string | null {
  if (items.length === 0) return null;
  const done = items.filter((item) => item.status === 'done').length;
  const now = items.find((item) => item.status === 'in_progress');
  const next = now ? undefined : items.find((item) => item.status === 'pending');
  const tail = now ? ` · now: ${oneLine(now.text)}` : next ? ` · next: ${oneLine(next.text)}` : '';
  return `todos ${done}/${items.length} done${tail}`;
}

const MARKS: Record<TodoStatus, string> = { pending: '[ ]', in_progress: '[>]', done: '[x]' };

/** The list as numbered lines ("1. [x] …"); "(no todos)" when empty. */
export function renderTodos(items: readonly TodoItem[]): string {
  if (items.length === 0) return '(no todos)';
  return items.map((item, index) => `${index + 1}. ${MARKS[item.status]} ${oneLine(item.text)}`).join('\n');
}

/** What a compaction summary keeps: the open items, so the model still sees them afterwards. */
export function openTodosNote(items: readonly TodoItem[]): string | null {
  const open = openTodos(items);
  if (open.length === 0) return null;
  return [`Open todos (${open.length} of ${items.length}; the full list is kept, todo_read shows it):`, ...open.map((item) => `- ${MARKS[item.status]} ${oneLine(item.text)}`)].join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}
