/**
 * MCP client requests as spans (the MCP semantic conventions): `tools/call
 * NAME`, `resources/read`, ... as CLIENT spans with `mcp.method.name`, the
 * tool name or resource URI, and the W3C trace context put in the request's
 * `params._meta` so a traced server can join the trace.
 */
import type { Telemetry } from '../../core/index.js';

/** Attribute names (MCP semconv; kept here, see plugins/telemetry/semconv.ts for why they are our own strings). */
const MCP_METHOD = 'mcp.method.name';
const MCP_RESOURCE_URI = 'mcp.resource.uri';
const MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
const TOOL_NAME = 'gen_ai.tool.name';
const OPERATION = 'gen_ai.operation.name';
const TRANSPORT = 'network.transport';
const SERVER = 'xdog.mcp.server';

export interface McpSpanTarget {
  server: string;
  transport: 'stdio' | 'http';
  protocolVersion?: string;
}

/** The span name the conventions give: the method, then the tool or prompt name when there is one. */
function spanName(method: string, params: Record<string, unknown> | undefined): string {
  const name = typeof params?.name === 'string' ? params.name : undefined;
  return name && (method === 'tools/call' || method === 'prompts/get') ? `${method} ${name}` : method;
}

/** Runs `send(params)` inside a client span, with the trace context added to `params._meta`. */
export function tracedRequest<T>(
  telemetry: Telemetry,
  target: McpSpanTarget,
  method: string,
  params: Record<string, unknown> | undefined,
  send: (params: Record<string, unknown> | undefined) => Promise<T>,
): Promise<T> {
  const attributes = {
    [MCP_METHOD]: method,
    [SERVER]: target.server,
    [TRANSPORT]: target.transport === 'stdio' ? 'pipe' : 'tcp',
    [MCP_PROTOCOL_VERSION]: target.protocolVersion,
    ...(method === 'tools/call' ? { [OPERATION]: 'execute_tool', [TOOL_NAME]: typeof params?.name === 'string' ? params.name : undefined } : {}),
    ...(method === 'resources/read' ? { [MCP_RESOURCE_URI]: typeof params?.uri === 'string' ? params.uri : undefined } : {}),
  };
  return telemetry.inSpan(spanName(method, params), { kind: 'client', attributes }, async (span) => {
    const meta = { ...(params?._meta as Record<string, unknown> | undefined), ...span.carrier() };
    const result = await send({ ...params, _meta: meta });
    if ((result as { isError?: unknown }).isError === true) span.fail('tool_error');
    return result;
  });
}
