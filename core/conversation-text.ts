/**
 * The plain-text forms of a conversation's messages that every client shows
 * and exports the same way (the claw TUI, `xdog agent chat`): visible text,
 * reasoning, tool calls and a one-line form of a call.
 */
import type { Message } from './agent/messages.js';

/** The visible text of a message's content (images as a count, never their bytes). */
export function messageText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  const parts: string[] = [];
  let images = 0;
  for (const part of message.content as Array<Record<string, any>>) {
    if (part.type === 'text') parts.push(part.text);
    else if (part.type === 'image') images++;
  }
  if (images) parts.push(`[${images} image${images === 1 ? '' : 's'}]`);
  return parts.join('\n');
}

export function thinkingText(message: Message): string {
  if (message.role !== 'assistant') return '';
  return (message.content as Array<Record<string, any>>).filter((part) => part.type === 'thinking' && !part.redacted).map((part) => part.thinking as string).join('\n');
}

export function toolCallsOf(message: Message): Array<{ id: string; name: string; arguments: unknown }> {
  if (message.role !== 'assistant') return [];
  return (message.content as Array<Record<string, any>>).filter((part) => part.type === 'toolCall').map((part) => ({ id: part.id, name: part.name, arguments: part.arguments }));
}

/** One line that stands for a tool call: its name and its arguments, cut to `width`. */
export function toolCallLine(name: string, args: unknown, width = 80): string {
  const shown = typeof args === 'object' && args !== null && 'command' in args ? String((args as { command: unknown }).command) : JSON.stringify(args ?? {});
  const line = `${name} ${shown}`.replace(/\s+/g, ' ');
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}
