/** Maps xdog messages and tools onto the Anthropic Messages request shape. */
import type { Base64ImageSource, ContentBlockParam, ImageBlockParam, MessageParam, TextBlockParam, Tool, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ImageContent, Message, TextContent, ToolDefinition } from '../../core/index.js';

type MediaType = Base64ImageSource['media_type'];

function block(part: TextContent | ImageContent): TextBlockParam | ImageBlockParam {
  if (part.type === 'text') return { type: 'text', text: part.text };
  return { type: 'image', source: { type: 'base64', media_type: part.mimeType as MediaType, data: part.data } };
}

/** The blocks of some content, without empty text blocks (the API refuses them). */
function blocks(content: ReadonlyArray<TextContent | ImageContent>): Array<TextBlockParam | ImageBlockParam> {
  return content.filter((part) => part.type !== 'text' || part.text !== '').map(block);
}

/**
 * Messages API turns: tool results become `tool_result` blocks of one user
 * turn; thinking goes back with its signature (the API checks it); an
 * assistant turn with nothing to replay is left out.
 */
export function toAnthropicMessages(messages: readonly Message[]): MessageParam[] {
  const out: MessageParam[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      out.push({ role: 'user', content: typeof message.content === 'string' ? message.content : blocks(message.content) });
    } else if (message.role === 'assistant') {
      const content: ContentBlockParam[] = [];
      for (const part of message.content) {
        if (part.type === 'text' && part.text) content.push({ type: 'text', text: part.text });
        else if (part.type === 'thinking' && part.redacted && part.signature) content.push({ type: 'redacted_thinking', data: part.signature });
        else if (part.type === 'thinking' && part.signature) content.push({ type: 'thinking', thinking: part.thinking, signature: part.signature });
        else if (part.type === 'toolCall') content.push({ type: 'tool_use', id: part.id, name: part.name, input: part.arguments });
      }
      if (content.length) out.push({ role: 'assistant', content });
    } else {
      const content = blocks(message.content);
      const result: ToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: message.toolCallId,
        ...(content.length ? { content } : {}),
        is_error: message.isError,
      };
      const previous = out.at(-1);
      const batch = previous?.role === 'user' && Array.isArray(previous.content) && previous.content.every((part) => part.type === 'tool_result');
      if (batch) (previous.content as ContentBlockParam[]).push(result);
      else out.push({ role: 'user', content: [result] });
    }
  }
  return out;
}

export function toAnthropicTools(tools: readonly ToolDefinition[]): Tool[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters as Tool['input_schema'] }));
}
