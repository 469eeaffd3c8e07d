/** Maps agent events and history onto ACP `session/update` payloads. */
import type { ContentBlock, SessionUpdate, ToolKind } from '@agentclientprotocol/sdk';
import type { AgentEvent, AgentToolResult, ImageContent, Message, TextContent } from '../../core/index.js';

const TOOL_KINDS: Record<string, ToolKind> = {
  bash: 'execute',
  read: 'read',
  ls: 'read',
  write: 'edit',
  edit: 'edit',
  grep: 'search',
  find: 'search',
  web_search: 'fetch',
};

export function toolKind(name: string): ToolKind {
  return TOOL_KINDS[name] ?? 'other';
}

/** A short human title for a tool call. */
export function toolTitle(name: string, args: Record<string, unknown>): string {
  const subject = args.command ?? args.path ?? args.pattern ?? args.query;
  return typeof subject === 'string' ? `${name}: ${subject.length > 80 ? `${subject.slice(0, 80)}…` : subject}` : name;
}

function blocks(content: ReadonlyArray<TextContent | ImageContent>): ContentBlock[] {
  return content.map((part) => (part.type === 'text' ? { type: 'text', text: part.text } : { type: 'image', data: part.data, mimeType: part.mimeType }));
}

function resultContent(result: AgentToolResult) {
  return blocks(result.content).map((content) => ({ type: 'content' as const, content }));
}

/** The update one live agent event produces, if any. */
export function updateFor(event: AgentEvent): SessionUpdate | undefined {
  switch (event.type) {
    case 'message_update':
      if (event.delta.type === 'text_delta') return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.delta.delta } };
      if (event.delta.type === 'thinking_delta') return { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.delta.delta } };
      return undefined;
    case 'tool_start':
      return {
        sessionUpdate: 'tool_call',
        toolCallId: event.toolCallId,
        title: toolTitle(event.toolName, event.args),
        kind: toolKind(event.toolName),
        status: 'pending',
        rawInput: event.args,
      };
    case 'tool_end':
      return {
        sessionUpdate: 'tool_call_update',
        toolCallId: event.toolCallId,
        status: event.isError ? 'failed' : 'completed',
        content: resultContent(event.result),
      };
    default:
      return undefined;
  }
}

/** Updates that replay a stored history (for `session/load`). */
export function replayUpdates(messages: readonly Message[]): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      const parts = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
      for (const content of blocks(parts)) updates.push({ sessionUpdate: 'user_message_chunk', content });
    } else if (message.role === 'assistant') {
      for (const part of message.content) {
        if (part.type === 'text') updates.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: part.text } });
        else if (part.type === 'thinking') updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: part.thinking } });
        else updates.push({ sessionUpdate: 'tool_call', toolCallId: part.id, title: toolTitle(part.name, part.arguments), kind: toolKind(part.name), status: 'pending', rawInput: part.arguments });
      }
    } else {
      updates.push({ sessionUpdate: 'tool_call_update', toolCallId: message.toolCallId, status: message.isError ? 'failed' : 'completed', content: resultContent(message) });
    }
  }
  return updates;
}
