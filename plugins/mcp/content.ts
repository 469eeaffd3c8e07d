/**
 * MCP content blocks as typed, inert data. Every block keeps its identity
 * (text, image, audio, embedded text or blob resource, resource link), binary
 * payloads keep their base64 and MIME type, and nothing is fetched, played or
 * opened. Malformed or oversized blocks fail; nothing is silently dropped.
 */
import { ErrorCodes, LIMITS, XdogError } from '../../core/index.js';

/** The identity of a block. */
export type McpBlockType = 'text' | 'image' | 'audio' | 'resource_text' | 'resource_blob' | 'resource_link';

/** One validated content block. Binary blocks (`isBinary`) carry base64 `data`, never text. */
export interface McpBlock {
  readonly contentType: McpBlockType;
  readonly isBinary: boolean;
  readonly text?: string;
  /** Base64 payload of image, audio and blob blocks (may be empty). */
  readonly data?: string;
  readonly mimeType?: string;
  /** Decoded size of a binary payload. */
  readonly bytes?: number;
  readonly uri?: string;
  readonly name?: string;
  readonly title?: string;
  readonly description?: string;
  readonly annotations?: unknown;
  readonly meta?: Record<string, unknown>;
}

/** Image types a model may be shown; other images stay inert data. */
export const MODEL_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp']);

function fail(where: string, problem: string): never {
  throw new XdogError(ErrorCodes.MCP_FAILED, `${where}: ${problem}`, { hint: 'the MCP server sent content this client cannot accept' });
}

/** Decoded size of a base64 string, checked for form and for the per-block limit. */
export function base64Bytes(data: unknown, where: string): number {
  if (typeof data !== 'string') fail(where, 'binary data is not a string');
  if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) fail(where, 'binary data is not valid base64');
  const bytes = (data.length / 4) * 3 - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
  if (bytes > LIMITS.mcpBlockDecodedBytes) {
    throw new XdogError(
      ErrorCodes.LIMIT_EXCEEDED,
      `${where}: binary block is ${bytes} bytes decoded, over the ${LIMITS.mcpBlockDecodedBytes}-byte limit per block`,
    );
  }
  return bytes;
}

function checkUri(uri: unknown, where: string): string {
  if (typeof uri !== 'string' || uri === '') fail(where, 'resource URI is missing or empty');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\s]/.test(uri)) fail(where, `resource URI ${JSON.stringify(uri.slice(0, 100))} contains whitespace or control characters`);
  if (!URL.canParse(uri)) fail(where, `resource URI ${JSON.stringify(uri.slice(0, 100))} is not an absolute URI`);
  return uri;
}

function optionalString(value: unknown, key: string, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') fail(where, `${key} is not a string`);
  return value;
}

function metadataOf(raw: Record<string, unknown>, where: string): Pick<McpBlock, 'annotations' | 'meta'> {
  const out: { annotations?: unknown; meta?: Record<string, unknown> } = {};
  if (raw.annotations !== undefined) {
    const annotations = raw.annotations as Record<string, unknown>;
    if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations)) fail(where, 'annotations is not an object');
    if (annotations.priority !== undefined && !(typeof annotations.priority === 'number' && annotations.priority >= 0 && annotations.priority <= 1)) {
      fail(where, 'annotations.priority must be a number from 0 to 1');
    }
    if (annotations.audience !== undefined) {
      const audience = annotations.audience;
      if (!Array.isArray(audience) || audience.some((role) => role !== 'user' && role !== 'assistant')) {
        fail(where, 'annotations.audience must list "user" and/or "assistant"');
      }
    }
    out.annotations = annotations;
  }
  if (raw._meta !== undefined) {
    if (typeof raw._meta !== 'object' || raw._meta === null || Array.isArray(raw._meta)) fail(where, '_meta is not an object');
    out.meta = raw._meta as Record<string, unknown>;
  }
  return out;
}

/** Validates one raw content block from a tool result, resource or prompt. */
export function parseBlock(raw: unknown, where: string): McpBlock {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(where, 'content block is not an object');
  const block = raw as Record<string, unknown>;
  const metadata = metadataOf(block, where);
  switch (block.type) {
    case 'text': {
      if (typeof block.text !== 'string') fail(where, 'text block without text');
      return { contentType: 'text', isBinary: false, text: block.text, ...metadata };
    }
    case 'image':
    case 'audio': {
      const mimeType = optionalString(block.mimeType, 'mimeType', where);
      if (!mimeType) fail(where, `${block.type} block without mimeType`);
      const bytes = base64Bytes(block.data, where);
      return { contentType: block.type, isBinary: true, data: block.data as string, mimeType, bytes, ...metadata };
    }
    case 'resource':
      return { ...parseResourceContents(block.resource, where), ...metadata };
    case 'resource_link':
      return {
        contentType: 'resource_link',
        isBinary: false,
        uri: checkUri(block.uri, where),
        name: optionalString(block.name, 'name', where),
        title: optionalString(block.title, 'title', where),
        description: optionalString(block.description, 'description', where),
        mimeType: optionalString(block.mimeType, 'mimeType', where),
        ...metadata,
      };
    default:
      return fail(where, `unsupported content type ${JSON.stringify(block.type)}`);
  }
}

/** Validates the contents of a resource (embedded, or one entry of resources/read). */
export function parseResourceContents(raw: unknown, where: string): McpBlock {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(where, 'resource contents is not an object');
  const resource = raw as Record<string, unknown>;
  const uri = checkUri(resource.uri, where);
  const mimeType = optionalString(resource.mimeType, 'mimeType', where);
  const metadata = metadataOf(resource, where);
  const hasText = resource.text !== undefined;
  const hasBlob = resource.blob !== undefined;
  if (hasText === hasBlob) fail(where, `resource ${uri} must carry exactly one of text and blob`);
  if (hasText) {
    if (typeof resource.text !== 'string') fail(where, `resource ${uri} text is not a string`);
    return { contentType: 'resource_text', isBinary: false, uri, mimeType, text: resource.text, ...metadata };
  }
  const bytes = base64Bytes(resource.blob, where);
  return { contentType: 'resource_blob', isBinary: true, uri, mimeType, data: resource.blob as string, bytes, ...metadata };
}

/** A one-line, model-safe description of a block that is not shown as itself. */
export function describeBlock(block: McpBlock): string {
  switch (block.contentType) {
    case 'text':
      return block.text ?? '';
    case 'image':
      return `[MCP image: ${block.mimeType}, ${block.bytes} bytes; kept as data, not shown to the model]`;
    case 'audio':
      return `[MCP audio: ${block.mimeType}, ${block.bytes} bytes; kept as data, not played]`;
    case 'resource_text':
      return `[MCP resource ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ''}]\n${block.text}`;
    case 'resource_blob':
      return `[MCP resource ${block.uri}: ${block.mimeType ?? 'binary'}, ${block.bytes} bytes; kept as data]`;
    case 'resource_link':
      return `[MCP resource link ${block.uri}${block.name ? ` "${block.name}"` : ''}${block.mimeType ? ` (${block.mimeType})` : ''}; not fetched]`;
  }
}

/** Blocks' annotations and `_meta`, by index, or undefined when none carry any. */
export function blockMetadata(blocks: readonly McpBlock[]): Array<{ index: number; annotations?: unknown; _meta?: unknown }> | undefined {
  const entries = blocks.flatMap((block, index) =>
    block.annotations === undefined && block.meta === undefined
      ? []
      : [{ index, ...(block.annotations !== undefined ? { annotations: block.annotations } : {}), ...(block.meta !== undefined ? { _meta: block.meta } : {}) }],
  );
  if (entries.length === 0) return undefined;
  const bytes = Buffer.byteLength(JSON.stringify(entries));
  if (bytes > LIMITS.mcpMetadataBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `MCP content metadata is ${bytes} bytes, over the ${LIMITS.mcpMetadataBytes}-byte limit`);
  }
  return entries;
}

/** Freezes plain data all the way down. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
