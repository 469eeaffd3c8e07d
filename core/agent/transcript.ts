/**
 * Structural checks over a message list: every tool result answers a call
 * of the assistant message before it, and every call is answered before the
 * conversation moves on. Used for rendered contexts and snapshots alike.
 */
import type { Message, ToolCall } from './messages.js';

/** Describes the first pairing problem in `messages`, or undefined when every call and result pair up. */
export function findPairingProblem(messages: readonly Message[]): string | undefined {
  let open = new Map<string, string>();
  const unanswered = () => {
    const [id, name] = open.entries().next().value as [string, string];
    return `tool call "${id}" (${name}) has no tool result`;
  };
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role === 'toolResult') {
      if (!open.delete(message.toolCallId)) {
        return `message ${index} is a tool result for "${message.toolCallId}", which no preceding assistant message called (or that call was already answered)`;
      }
      continue;
    }
    if (open.size) return unanswered();
    if (message.role === 'assistant') {
      open = new Map();
      for (const part of message.content) if (part.type === 'toolCall') open.set(part.id, part.name);
    }
  }
  return open.size ? unanswered() : undefined;
}

/**
 * The calls of the last message, when it is an assistant message whose calls
 * are not all answered yet (a run waiting for an approval when its process
 * stopped); empty otherwise. Results already there come first in the list.
 */
export function unansweredCalls(messages: readonly Message[]): ToolCall[] {
  let last = messages.length - 1;
  while (last >= 0 && messages[last]!.role === 'toolResult') last--;
  const assistant = messages[last];
  if (!assistant || assistant.role !== 'assistant') return [];
  const answered = new Set(messages.slice(last + 1).map((message) => (message.role === 'toolResult' ? message.toolCallId : '')));
  const calls: ToolCall[] = [];
  for (const part of assistant.content) if (part.type === 'toolCall' && !answered.has(part.id)) calls.push(part);
  return calls;
}
