/** A scripted model for tests: answers from a list and records every request it saw. */
import type { AssistantMessage, ModelContext, ModelStreamFn, ToolCall } from '../../../core/index.js';

export type ScriptedReply = string | { toolCalls: Array<Omit<ToolCall, 'type' | 'id'> & { id?: string }> } | { error: string };

export interface ScriptedStream {
  streamFn: ModelStreamFn;
  requests: ModelContext[];
}

export function scriptedStream(replies: ScriptedReply[]): ScriptedStream {
  const requests: ModelContext[] = [];
  let calls = 0;
  const streamFn: ModelStreamFn = async function* (model, context) {
    requests.push(structuredClone(context));
    const reply = replies[calls++] ?? 'done';
    const base = { role: 'assistant' as const, model, usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, timestamp: Date.now() };
    let message: AssistantMessage;
    if (typeof reply === 'string') message = { ...base, content: [{ type: 'text', text: reply }], stopReason: 'stop' };
    else if ('error' in reply) message = { ...base, content: [], stopReason: 'error', errorMessage: reply.error };
    else {
      message = {
        ...base,
        content: reply.toolCalls.map((call, i) => ({ type: 'toolCall' as const, id: call.id ?? `call-${calls}-${i}`, name: call.name, arguments: call.arguments })),
        stopReason: 'toolUse',
      };
    }
    yield { type: 'start', partial: { ...message, content: [] } };
    yield message.stopReason === 'error' ? { type: 'error', message } : { type: 'done', message };
  };
  return { streamFn, requests };
}

/** Drains a prompt stream and returns its result. */
export async function drain(stream: AsyncIterable<unknown> & { result(): Promise<unknown> }): Promise<unknown> {
  for await (const _event of stream) {
    // read every event
  }
  return stream.result();
}
