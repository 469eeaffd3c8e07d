/**
 * MCP client requests as spans (the MCP semantic conventions): `tools/call
 * NAME`, `resources/read`, ... as CLIENT spans with `mcp.method.name`, the
 * tool name or resource URI, and the W3C trace context put in the request's
 * `params._meta` so a traced server can join the trace.
 */
import type { Telemetry, TraceCarrier } from '../../core/index.js';
import type { McpClientHandlers } from './client-requests.js';

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

function targetAttributes(method: string, target: McpSpanTarget) {
  return { [MCP_METHOD]: method, [SERVER]: target.server, [TRANSPORT]: target.transport === 'stdio' ? 'pipe' : 'tcp', [MCP_PROTOCOL_VERSION]: target.protocolVersion };
}

/** Runs `send(params, carrier)` inside a client span, with the trace context (`carrier`) added to `params._meta`. */
export function tracedRequest<T>(
  telemetry: Telemetry,
  target: McpSpanTarget,
  method: string,
  params: Record<string, unknown> | undefined,
  send: (params: Record<string, unknown> | undefined, carrier: TraceCarrier) => Promise<T>,
): Promise<T> {
  const attributes = {
    ...targetAttributes(method, target),
    ...(method === 'tools/call' ? { [OPERATION]: 'execute_tool', [TOOL_NAME]: typeof params?.name === 'string' ? params.name : undefined } : {}),
    ...(method === 'resources/read' ? { [MCP_RESOURCE_URI]: typeof params?.uri === 'string' ? params.uri : undefined } : {}),
  };
  return telemetry.inSpan(spanName(method, params), { kind: 'client', attributes }, async (span) => {
    const carrier = span.carrier();
    const result = await send({ ...params, _meta: { ...(params?._meta as Record<string, unknown> | undefined), ...carrier } }, carrier);
    if ((result as { isError?: unknown }).isError === true) span.fail('tool_error');
    return result;
  });
}

/** Where a server request's span hangs, and on what it was asked. */
export interface ServerRequestTracing {
  telemetry: () => Telemetry | undefined;
  target: () => McpSpanTarget;
  /** The parent when the active context is not the request the server asks for (the initialize-era wire); undefined: the active span. */
  parent: () => TraceCarrier | undefined;
}

/**
 * `handlers` with each server request it answers (`sampling/createMessage`,
 * `elicitation/create`) as a SERVER span, so the work done for it (the
 * sampling call's `chat` span) nests under it. A handler that is absent
 * stays absent: what xdog declares to the server does not change.
 */
export function tracedHandlers(handlers: McpClientHandlers, tracing: ServerRequestTracing): McpClientHandlers {
  const traced =
    <R, A>(method: string, handle: (request: R, signal: AbortSignal) => Promise<A>) =>
    (request: R, signal: AbortSignal): Promise<A> => {
      const telemetry = tracing.telemetry();
      if (!telemetry) return handle(request, signal);
      const parent = tracing.parent();
      return telemetry.inSpan(method, { kind: 'server', attributes: targetAttributes(method, tracing.target()), ...(parent ? { parent } : {}) }, () => handle(request, signal));
    };
  return {
    ...(handlers.sample ? { sample: traced('sampling/createMessage', handlers.sample.bind(handlers)) } : {}),
    ...(handlers.elicit ? { elicit: traced('elicitation/create', handlers.elicit.bind(handlers)) } : {}),
  };
}
