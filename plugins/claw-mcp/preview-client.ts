/**
 * A client's read of an `mcp.read` or `mcp.prompt` preview: the document's
 * JSON in chunks of one snapshot, verified (core/rpc/chunked-read.ts) before
 * it is parsed, so a preview bigger than one frame arrives whole or not at all.
 */
import { LIMITS } from '../../core/limits.js';
import { readSnapshot } from '../../core/rpc/index.js';
import { chunksOf, type ChunkCall } from '../claw-gateway/tokens.js';
import type { McpDocument } from '../mcp/index.js';

export async function readMcpPreview(call: ChunkCall, method: 'mcp.read' | 'mcp.prompt', params: Record<string, unknown>, signal?: AbortSignal): Promise<McpDocument> {
  const what = method === 'mcp.read' ? `the MCP resource ${String(params.uri)}` : `the MCP prompt ${String(params.name)}`;
  return readSnapshot(chunksOf(call, method, params), { what, maxBytes: LIMITS.mcpPreviewBytes, overHint: 'ask the server for a smaller resource or prompt', ...(signal ? { signal } : {}) }, (body) => JSON.parse(body.bytes().toString('utf8')) as McpDocument);
}
