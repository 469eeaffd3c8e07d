/**
 * A `tools/call` result as an AgentToolResult. The model sees text and
 * admissible images as themselves, everything else as a labelled line; the
 * typed blocks, structured content (with a present/absent flag) and content
 * metadata go to `details`. A server `isError` becomes an error result that
 * keeps its content, never an exception.
 */
import type { AgentToolResult, ImageContent, TextContent } from '../../core/index.js';
import { ErrorCodes, XdogError } from '../../core/index.js';
import { blockMetadata, describeBlock, MODEL_IMAGE_TYPES, parseBlock, type McpBlock } from './content.js';
import type { CompiledSchema } from './schema.js';

/** `details` of an MCP tool result. */
export interface McpToolDetails {
  server: string;
  tool: string;
  blocks: McpBlock[];
  /** True when the result carried `structuredContent` (which may be null). */
  structuredContentPresent: boolean;
  structuredContent?: unknown;
  /** Annotations and `_meta` of the blocks, by block index. */
  mcpContentMetadata?: Array<{ index: number; annotations?: unknown; _meta?: unknown }>;
}

export const STRUCTURED_LABEL = '[MCP structured output]';
export const METADATA_LABEL = '[MCP content metadata]';

/** JSON with object keys sorted, for comparing a text block with structured content. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

function sameJson(text: string, canonical: string): boolean {
  try {
    return canonicalJson(JSON.parse(text)) === canonical;
  } catch {
    return false;
  }
}

function toModelPart(block: McpBlock): TextContent | ImageContent {
  if (block.contentType === 'image' && MODEL_IMAGE_TYPES.has(block.mimeType!) && block.bytes! > 0) {
    return { type: 'image', data: block.data!, mimeType: block.mimeType! };
  }
  return { type: 'text', text: describeBlock(block) };
}

export interface ConvertOptions {
  server: string;
  tool: string;
  /** The tool's advertised output schema, enforced on success results. */
  outputSchema?: CompiledSchema;
}

/** Converts and validates a raw `tools/call` result. */
export function toAgentResult(raw: Record<string, unknown>, options: ConvertOptions): AgentToolResult<McpToolDetails> {
  const where = `MCP tool "${options.tool}" on "${options.server}"`;
  if (!Array.isArray(raw.content)) {
    throw new XdogError(ErrorCodes.MCP_FAILED, `${where} returned a result without a content array`);
  }
  if (raw.isError !== undefined && typeof raw.isError !== 'boolean') {
    throw new XdogError(ErrorCodes.MCP_FAILED, `${where} returned a non-boolean isError`);
  }
  const isError = raw.isError === true;
  const blocks = raw.content.map((block, index) => parseBlock(block, `${where}, content[${index}]`));
  const structuredContentPresent = Object.hasOwn(raw, 'structuredContent');
  const structuredContent = raw.structuredContent;
  if (structuredContentPresent && (typeof structuredContent === 'number' && !Number.isFinite(structuredContent))) {
    throw new XdogError(ErrorCodes.MCP_FAILED, `${where} returned non-finite structuredContent`);
  }
  if (!isError && options.outputSchema) {
    if (!structuredContentPresent) {
      throw new XdogError(ErrorCodes.MCP_FAILED, `${where} advertises an output schema but returned no structuredContent`);
    }
    try {
      options.outputSchema.check(structuredContent, 'structured output');
    } catch (error) {
      throw new XdogError(ErrorCodes.MCP_FAILED, `${where}: ${(error as Error).message}`, { hint: 'the server broke its own output schema' });
    }
  }

  const content = blocks.map(toModelPart);
  if (structuredContentPresent) {
    const canonical = canonicalJson(structuredContent);
    const alreadyShown = blocks.some((block) => block.contentType === 'text' && sameJson(block.text!, canonical));
    if (!alreadyShown) content.push({ type: 'text', text: `${STRUCTURED_LABEL}\n${JSON.stringify(structuredContent)}` });
  }
  const mcpContentMetadata = blockMetadata(blocks);
  if (mcpContentMetadata) content.push({ type: 'text', text: `${METADATA_LABEL}\n${JSON.stringify(mcpContentMetadata)}` });

  const details: McpToolDetails = {
    server: options.server,
    tool: options.tool,
    blocks,
    structuredContentPresent,
    ...(structuredContentPresent ? { structuredContent } : {}),
    ...(mcpContentMetadata ? { mcpContentMetadata } : {}),
  };
  return { content, details, isError };
}
