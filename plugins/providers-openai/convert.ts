/** Maps xdog messages and tools onto the OpenAI Chat Completions request shape. */
import type { ChatCompletionContentPart, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ImageContent, Message, ModelContext, TextContent, ToolDefinition } from '../../core/index.js';
import { imageDataUrl } from '../providers-shared/index.js';

function userParts(content: Array<TextContent | ImageContent>): ChatCompletionContentPart[] {
  return content.map((part) =>
    part.type === 'text' ? { type: 'text', text: part.text } : { type: 'image_url', image_url: { url: imageDataUrl(part) } },
  );
}

/** Chat Completions messages for one request. Thinking is not sent back (the API takes none). */
export function toChatMessages(context: ModelContext): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (context.systemPrompt) out.push({ role: 'system', content: context.systemPrompt });
  // Tool messages take text only, so images from one batch of tool results follow it as a user message.
  let pendingImages: Array<{ tool: string; image: ImageContent }> = [];
  const flushImages = (): void => {
    if (pendingImages.length === 0) return;
    const parts: ChatCompletionContentPart[] = [];
    for (const { tool, image } of pendingImages) {
      parts.push({ type: 'text', text: `Image returned by tool ${tool}:` }, { type: 'image_url', image_url: { url: imageDataUrl(image) } });
    }
    out.push({ role: 'user', content: parts });
    pendingImages = [];
  };
  for (const message of context.messages as Message[]) {
    if (message.role !== 'toolResult') flushImages();
    if (message.role === 'user') {
      out.push({ role: 'user', content: typeof message.content === 'string' ? message.content : userParts(message.content) });
    } else if (message.role === 'assistant') {
      const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      const toolCalls = message.content.flatMap((part) =>
        part.type === 'toolCall' ? [{ id: part.id, type: 'function' as const, function: { name: part.name, arguments: JSON.stringify(part.arguments) } }] : [],
      );
      if (!text && toolCalls.length === 0) continue;
      out.push({ role: 'assistant', content: text || null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) });
    } else {
      const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
      for (const part of message.content) if (part.type === 'image') pendingImages.push({ tool: message.toolName, image: part });
      const images = message.content.length - message.content.filter((part) => part.type === 'text').length;
      const body = text || (images ? `(${images} image${images > 1 ? 's' : ''} follow)` : '(no output)');
      out.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.isError ? `Error: ${body}` : body });
    }
  }
  flushImages();
  return out;
}

export function toChatTools(tools: readonly ToolDefinition[]): ChatCompletionTool[] {
  return tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
}
