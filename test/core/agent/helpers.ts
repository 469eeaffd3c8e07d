/** Shared test helpers for the agent runtime: scripted agents, tools and event collection. */
import { z } from 'zod';
import { Agent, type AgentConfig, type AgentEvent, type AgentOptions, type AgentTool, type PromptStream } from '../../../core/index.js';
import { createFauxStreamFn, type FauxModelOverrides, type FauxResponse, type FauxStreamFn } from '../../../plugins/faux/index.js';

export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** An agent on a faux model playing `responses`. */
export function scripted(
  responses: FauxResponse[],
  options: AgentOptions = {},
  config: Partial<AgentConfig> = {},
  metadata?: FauxModelOverrides,
): { agent: Agent; model: FauxStreamFn } {
  const model = createFauxStreamFn({ responses, ...(metadata ? { model: metadata } : {}) });
  return { agent: new Agent(model, { model: 'faux/test', ...config }, options), model };
}

/** Reads a whole prompt stream. */
export async function collect(stream: PromptStream): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** A tool that records its calls and answers with `answer(args)`. */
export function recordingTool(name: string, answer: (args: Record<string, unknown>) => unknown = () => ({ content: [{ type: 'text', text: `${name} ok` }] })) {
  const calls: Array<Record<string, unknown>> = [];
  const tool: AgentTool = {
    name,
    description: `test tool ${name}`,
    parameters: { type: 'object', properties: {}, additionalProperties: true },
    execute: async (args) => {
      calls.push(args);
      return answer(args) as never;
    },
  };
  return { tool, calls };
}

/** A zod-typed tool. */
export const zodTool: AgentTool<{ path: string }> = {
  name: 'read_path',
  description: 'reads a path',
  parameters: z.object({ path: z.string().min(1) }),
  execute: async (args) => ({ content: [{ type: 'text', text: `read ${args.path}` }] }),
};

/** A promise with its resolver. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** The text of every message the model saw in request `index`. */
export function requestTexts(model: FauxStreamFn, index: number): string[] {
  return model.requests[index]!.messages.map((message) =>
    typeof message.content === 'string'
      ? message.content
      : message.content.map((part) => (part.type === 'text' ? part.text : part.type === 'image' ? `[image ${part.mimeType}]` : part.type)).join(' '),
  );
}
