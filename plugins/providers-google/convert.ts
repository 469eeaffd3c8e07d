/**
 * Maps xdog messages and tools onto the Gemini `generateContent` request
 * shape. Thinking goes back with its thought signature (the API checks it); a
 * signature Gemini attached to a function call travels in an empty thinking
 * part just before that call, and is put back on the call here.
 */
import type { Content, FunctionDeclaration, Part } from '@google/genai';
import type { ImageContent, Message, TextContent, ToolDefinition } from '../../core/index.js';

function mediaParts(content: string | Array<TextContent | ImageContent>): Part[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  return content.flatMap((part): Part[] => {
    if (part.type === 'image') return [{ inlineData: { mimeType: part.mimeType, data: part.data } }];
    return part.text ? [{ text: part.text }] : [];
  });
}

function modelParts(message: Extract<Message, { role: 'assistant' }>): Part[] {
  const parts: Part[] = [];
  let signature: string | undefined;
  for (const part of message.content) {
    if (part.type === 'thinking') {
      if (part.redacted) continue; // another vendor's encrypted thinking
      if (part.thinking) parts.push({ text: part.thinking, thought: true, ...(part.signature && { thoughtSignature: part.signature }) });
      else signature = part.signature;
    } else if (part.type === 'text') {
      if (part.text) parts.push({ text: part.text });
    } else if (part.type === 'toolCall') {
      parts.push({ functionCall: { id: part.id, name: part.name, args: part.arguments }, ...(signature && { thoughtSignature: signature }) });
      signature = undefined;
    }
  }
  return parts;
}

/** Gemini contents for one request: tool results of one batch share one user turn. */
export function toGeminiContents(messages: readonly Message[]): Content[] {
  const contents: Content[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      const parts = mediaParts(message.content);
      if (parts.length) contents.push({ role: 'user', parts });
    } else if (message.role === 'assistant') {
      const parts = modelParts(message);
      if (parts.length) contents.push({ role: 'model', parts });
    } else {
      const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
      const images = message.content.filter((part): part is ImageContent => part.type === 'image');
      const response = message.isError ? { error: text || '(no output)' } : { output: text || (images.length ? `(${images.length} image${images.length > 1 ? 's' : ''} follow)` : '(no output)') };
      const parts: Part[] = [
        { functionResponse: { id: message.toolCallId, name: message.toolName, response } },
        ...images.map((image): Part => ({ inlineData: { mimeType: image.mimeType, data: image.data } })),
      ];
      const previous = contents.at(-1);
      if (previous?.role === 'user' && previous.parts?.some((part) => part.functionResponse)) previous.parts.push(...parts);
      else contents.push({ role: 'user', parts });
    }
  }
  return contents;
}

export function toGeminiTools(tools: readonly ToolDefinition[]): FunctionDeclaration[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, parametersJsonSchema: tool.parameters }));
}
