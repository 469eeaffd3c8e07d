/** Plain-text renderings of MCP data for terminals. Binary payloads are summarised, never printed. */
import type { AgentToolResult } from '../../core/index.js';
import { describeBlock } from './content.js';
import type { McpDocument } from './documents.js';

/** A tool result as text: text parts as they are, images as one summary line each. */
export function formatToolResult(result: AgentToolResult): string {
  return result.content
    .map((part) =>
      part.type === 'text' ? part.text : `[image: ${part.mimeType}, ${Buffer.byteLength(part.data, 'base64')} bytes]`,
    )
    .join('\n');
}

/** A resource or prompt document as text, binary blocks summarised. */
export function formatDocument(document: McpDocument): string {
  if (document.kind === 'resource') return document.blocks.map(describeBlock).join('\n');
  const head = document.description ? [`# ${document.description}`] : [];
  return [...head, ...document.messages.map((message) => `[${message.role}] ${describeBlock(message.block)}`)].join('\n');
}
