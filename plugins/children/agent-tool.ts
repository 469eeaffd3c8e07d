/**
 * The `agent` model tool: one tool, an `action` per operation. Its JSON
 * Schema is one flat object (what every provider accepts); the arguments
 * are then checked per action (AgentToolArgsSchema), so a spawn-only field
 * in a control action is refused rather than ignored.
 */
import { ErrorCodes, XdogError, describeError, tapHook, type Agent, type AgentTool, type AgentToolResult, type Disposer, type Message } from '../../core/index.js';
import { AgentToolArgsSchema, inheritedContext, resolveChildSpec, type AgentToolArgs, type ChildPresets, type ChildSpec } from './contracts.js';
import type { TodoItem } from '../todos/index.js';
import type { SpawnOptions } from './memory-runtime.js';

/** What the `agent` tool drives: MemoryChildRuntime (agent chat) or DurableChildRuntime (a claw group). */
export interface ChildRuntime {
  readonly presets: ChildPresets;
  spawn(spec: ChildSpec, options: SpawnOptions): unknown;
  list(): unknown;
  inspect(id: string): unknown;
  queue(id: string, lane: 'steer' | 'followUp', text: string): unknown;
  pending(id: string): unknown;
  cancel(id: string): unknown;
  wait(ids: readonly string[] | undefined, signal?: AbortSignal): unknown;
  close(id: string): Promise<void>;
}

/** Where the tool finds what a spawn takes from its parent. */
export interface AgentToolOptions {
  /** The parent's conversation as the spawn call was about to run (ParentContexts.of). */
  contextOf?(args: object): readonly Message[] | undefined;
  /** The parent's session, from the tool context (claw). */
  parentSessionOf?(toolCtx: Record<string, unknown>): string | null;
  /** The parent's todo list now, for a spawn with inherit_todos. */
  todosOf?(toolCtx: Record<string, unknown>): Promise<TodoItem[]>;
}

/**
 * The conversations of parents at their `agent` spawn calls (any spawn: its
 * config or preset may ask for inherit_context). A tool sees only its arguments, so a `beforeToolCall` tap
 * on each parent copies the conversation under the call's argument object
 * (the very object `execute` gets); a call a gate blocks leaves nothing
 * behind (a WeakMap).
 */
export class ParentContexts {
  readonly #byArgs = new WeakMap<object, readonly Message[]>();

  /** Follows one parent agent that has `tool`; returns a disposer. */
  follow(agent: Agent, tool: AgentTool): Disposer {
    return tapHook(agent.hooks.beforeToolCall, 'children:parent-context', (call: { tool: AgentTool; args: Record<string, unknown> }) => {
      if (call.tool === tool && call.args.action === 'spawn') this.#byArgs.set(call.args, agent.messages);
      return undefined;
    });
  }

  of(args: object): readonly Message[] | undefined {
    return this.#byArgs.get(args);
  }
}

const PARAMETERS = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['spawn', 'list', 'presets', 'inspect', 'steer', 'follow-up', 'cancel', 'wait', 'close', 'queue'] },
    task: { type: 'string', description: 'spawn: what the child should do and report back' },
    access: { type: 'string', enum: ['read-only', 'inherit'], description: 'spawn: read-only (default) or the parent\'s own gates' },
    inherit_context: { type: 'boolean', description: 'spawn: start from a copy of your conversation (default false: the child starts fresh, from its task alone)' },
    inherit_todos: { type: 'boolean', description: 'spawn: give the child a copy of your todo list (its changes stay its own)' },
    config: {
      type: 'object',
      description: 'spawn: label, instructions, tools (names), model, thinking, timeout (s), max_model_calls, max_tokens, preset, inherit_context; caps can only be lowered',
    },
    id: { type: 'string', description: 'the child, for inspect, steer, follow-up, cancel, close, queue' },
    text: { type: 'string', description: 'steer, follow-up: the message' },
    ids: { type: 'array', items: { type: 'string' }, description: 'wait: the children to wait for (default: all)' },
  },
  required: ['action'],
  additionalProperties: false,
};

function answer(value: unknown): AgentToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], details: value };
}

async function perform(runtime: ChildRuntime, args: AgentToolArgs, raw: object, context: { signal: AbortSignal; toolCtx: Record<string, unknown> }, options: AgentToolOptions): Promise<unknown> {
  switch (args.action) {
    case 'spawn': {
      let spec = resolveChildSpec(args, runtime.presets);
      if (spec.inheritTodos) {
        if (!options.todosOf) throw new XdogError(ErrorCodes.UNSUPPORTED, 'this host cannot give a child its parent\'s todo list', { hint: 'spawn without inherit_todos and put the open items into its task' });
        spec = { ...spec, todos: await options.todosOf(context.toolCtx) };
      }
      let inherited: Message[] | undefined;
      if (spec.inheritContext) {
        const parent = options.contextOf?.(raw);
        if (!parent) throw new XdogError(ErrorCodes.UNSUPPORTED, "this host cannot give a child its parent's conversation", { hint: 'spawn without inherit_context and put what the child needs into its task' });
        inherited = inheritedContext(parent, spec);
      }
      return runtime.spawn(spec, { ...(inherited ? { context: inherited } : {}), parentSessionId: options.parentSessionOf?.(context.toolCtx) ?? null });
    }
    case 'list':
      return runtime.list();
    case 'presets':
      return runtime.presets;
    case 'inspect':
      return runtime.inspect(args.id);
    case 'steer':
      return runtime.queue(args.id, 'steer', args.text);
    case 'follow-up':
      return runtime.queue(args.id, 'followUp', args.text);
    case 'cancel':
      return runtime.cancel(args.id);
    case 'wait':
      return runtime.wait(args.ids, context.signal);
    case 'close':
      await runtime.close(args.id);
      return { closed: args.id };
    case 'queue':
      return runtime.pending(args.id);
  }
}

/** The `agent` tool on `runtime` (or on the runtime a getter answers when the call runs). */
export function createAgentTool(runtime: ChildRuntime | (() => ChildRuntime), options: AgentToolOptions = {}): AgentTool<Record<string, unknown>> {
  const runtimeNow = typeof runtime === 'function' ? runtime : () => runtime;
  return {
    name: 'agent',
    description:
      'Delegate to child agents. spawn {task} starts one (read-only by default: it may only read, ls, grep, find and tell the time) and returns its id at once; ' +
      'wait {ids?} waits for children and returns their results; list, inspect {id}, steer/follow-up {id, text}, cancel {id}, close {id}, queue {id}, presets. ' +
      'At most 3 run at once; each has at most 120 s, 16 model calls and 32,000 tokens. Children cannot delegate further.',
    parameters: PARAMETERS,
    async execute(raw, context) {
      const parsed = AgentToolArgsSchema.safeParse(raw);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`);
        return { content: [{ type: 'text', text: `Error: ${problems.join('; ')}` }], isError: true };
      }
      try {
        return answer(await perform(runtimeNow(), parsed.data, raw, context, options));
      } catch (error) {
        return { content: [{ type: 'text', text: `Error: ${describeError(error)}` }], isError: true };
      }
    },
  };
}
