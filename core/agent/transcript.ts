/**
 * Structural checks over a message list: every tool result answers a call
 * of the assistant message before it, and every call is answered before the
 * conversation moves on. Used for rendered contexts and snapshots alike.
 */
import type { Message } from './messages.js';

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
