/**
 * The gateway's `todos.get` method (capability `todos:1`) and its
 * `todos.changed` notification, sent to a group's subscribers when the model
 * saved a new list. The list is read from the store, so any worker answers
 * the same; the method is routed to the group's owner like every other.
 */
import { ErrorCodes, XdogError, describeError, z, type Agent } from '../../core/index.js';
import { gatewayMethod, turnWritesOfAgent, type GatewayHost, type GatewayService } from '../claw-gateway/tokens.js';
import { loadSessionTodos } from './session-todos.js';
import { openTodos, todoSummary, type TodoList } from './state.js';

/** What `todos.get` answers and `todos.changed` carries. */
export interface TodoView extends TodoList {
  group: string;
  /** The session the list belongs to; null while the group has none. */
  sessionId: string | null;
  /** The one-line summary ("todos 2/5 done · now: …"); null for an empty list. */
  summary: string | null;
  done: number;
  open: number;
}

export const TodoNotifications = { changed: 'todos.changed' } as const;

export const TODOS_CAPABILITY = 'todos:1';

export function todoView(group: string, sessionId: string | null, list: TodoList): TodoView {
  const open = openTodos(list.items).length;
  return { group, sessionId, ...list, summary: todoSummary(list.items), done: list.items.length - open, open };
}

export function createTodoService(): GatewayService {
  let host: GatewayHost | undefined;
  const started = (): GatewayHost => {
    if (!host) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the todos service has not started', { hint: 'retry once the gateway is ready' });
    return host;
  };
  const followed = new WeakSet<Agent>();

  /** Tells the group's subscribers when a session's agent saved a new list (once per agent). */
  const follow = (gateway: GatewayHost, agent: Agent, group: string, sessionId: string): void => {
    if (followed.has(agent)) return;
    followed.add(agent);
    agent.subscribe((event) => {
      if (event.type !== 'tool_end' || event.toolName !== 'todo_write' || event.isError) return;
      // The list commits with the tool result entry: announce it once it did (a staged write that failed is not announced).
      const committed = turnWritesOfAgent(agent)?.committed(event.toolCallId) ?? Promise.resolve(true);
      void committed.then((ok) => ok && announce());
    });
    const announce = (): void => {
      loadSessionTodos(gateway.store, sessionId).then(
        (list) => gateway.publish(group, sessionId, TodoNotifications.changed, todoView(group, sessionId, list)),
        (error: unknown) => gateway.log(`todos: could not read the list of session ${sessionId} to announce it: ${describeError(error)}`),
      );
    };
  };

  return {
    name: 'todos',
    capabilities: [TODOS_CAPABILITY],
    methods: {
      'todos.get': gatewayMethod(z.object({ group: z.string().optional(), sessionId: z.string().min(1).optional() }).strict(), async (params): Promise<TodoView> => {
        const gateway = started();
        const runtime = gateway.group(params.group);
        const sessionId = params.sessionId ?? runtime.activeSessionId;
        if (!sessionId) return todoView(runtime.name, null, { items: [], revision: 0, updatedAt: null });
        if (params.sessionId) {
          const session = await gateway.store.getSession(params.sessionId);
          if (session.group !== runtime.name) throw new XdogError(ErrorCodes.NOT_FOUND, `session ${params.sessionId} belongs to group ${session.group}, not ${runtime.name}`, { hint: 'name its own group' });
        }
        return todoView(runtime.name, sessionId, await loadSessionTodos(gateway.store, sessionId));
      }),
    },
    start(gatewayHost) {
      host = gatewayHost;
      gatewayHost.hooks.runStarting.tap('todos', (info) => follow(gatewayHost, info.agent, info.group, info.sessionId));
    },
    stop() {
      host = undefined;
    },
  };
}
