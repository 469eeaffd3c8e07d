/**
 * The `agent` model tool: one tool, an `action` per operation. Its JSON
 * Schema is one flat object (what every provider accepts); the arguments
 * are then checked per action (AgentToolArgsSchema), so a spawn-only field
 * in a control action is refused rather than ignored.
 */
import { describeError, type AgentTool, type AgentToolResult } from '../../core/index.js';
import { AgentToolArgsSchema, resolveChildSpec, type AgentToolArgs } from './contracts.js';
import type { MemoryChildRuntime } from './memory-runtime.js';

const PARAMETERS = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: ['spawn', 'list', 'presets', 'inspect', 'steer', 'follow-up', 'cancel', 'wait', 'close', 'queue'] },
    task: { type: 'string', description: 'spawn: what the child should do and report back' },
    access: { type: 'string', enum: ['read-only', 'inherit'], description: 'spawn: read-only (default) or the parent\'s own gates' },
    inherit_context: { type: 'boolean', description: 'spawn: start from the parent\'s conversation' },
    config: {
      type: 'object',
      description: 'spawn: label, instructions, tools (names), model, thinking, timeout (s), max_model_calls, max_tokens, preset; caps can only be lowered',
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

async function perform(runtime: MemoryChildRuntime, args: AgentToolArgs, signal: AbortSignal): Promise<unknown> {
  switch (args.action) {
    case 'spawn':
      return runtime.spawn(resolveChildSpec(args, runtime.presets));
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
      return runtime.wait(args.ids, signal);
    case 'close':
      await runtime.close(args.id);
      return { closed: args.id };
    case 'queue':
      return runtime.pending(args.id);
  }
}

export function createAgentTool(runtime: MemoryChildRuntime): AgentTool<Record<string, unknown>> {
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
        return answer(await perform(runtime, parsed.data, context.signal));
      } catch (error) {
        return { content: [{ type: 'text', text: `Error: ${describeError(error)}` }], isError: true };
      }
    },
  };
}
