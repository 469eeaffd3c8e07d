/**
 * The Streamable HTTP transport, on the SDK's client with a guarded fetch:
 * explicit endpoints only (no userinfo, no fragment, TLS unless loopback or
 * `allow_insecure_http`), no redirects, 401/403 as explicit failures, and
 * every JSON body and SSE event bounded by LIMITS.mcpMessageBytes.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCodes, LIMITS, XdogError } from '../../core/index.js';
import type { McpHttpConfig } from './server-config.js';

/** Headers the transport owns; a config may not set them. */
const RESERVED_HEADERS = new Set(['mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-client-info', 'content-type', 'accept', 'last-event-id', 'host']);

/** Legacy SSE recovery: at most 3 GETs; delays start at 50 ms and stay under 5 s. */
const RECONNECTION = { maxRetries: 3, initialReconnectionDelay: 50, maxReconnectionDelay: 5000, reconnectionDelayGrowFactor: 2 };

/** Checks an endpoint URL against the transport policy; returns it parsed. */
export function checkEndpoint(raw: string, allowInsecureHttp = false): URL {
  const url = new URL(raw);
  const fail = (problem: string, hint: string) => {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `MCP endpoint ${url.origin}${url.pathname}: ${problem}`, { hint });
  };
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`unsupported scheme ${url.protocol}`, 'use an https:// URL');
  if (url.username || url.password) fail('credentials in the URL are not allowed', 'put them in headers_env instead');
  if (url.hash) fail('a URL fragment is not allowed', 'remove the #fragment');
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && !allowInsecureHttp) {
    fail('plaintext HTTP to a non-loopback host', 'use https://, or set allow_insecure_http: true for this server');
  }
  return url;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** Resolves static headers and headers_env (read now, at connect); values never leave this function's result. */
export function resolveHeaders(config: McpHttpConfig, env: NodeJS.ProcessEnv): Record<string, string> {
  const headers: Record<string, string> = {};
  const add = (name: string, value: string, source: string) => {
    if (RESERVED_HEADERS.has(name.toLowerCase()) || name.toLowerCase().startsWith('mcp-param-')) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `header "${name}" is set by the MCP transport and may not be configured`, {
        hint: 'remove it from headers / headers_env',
      });
    }
    // Checked here because fetch's own error quotes the whole value, which may be a secret.
    if (hasControlCharacter(value)) {
      throw new XdogError(ErrorCodes.CONFIG_INVALID, `header "${name}" from ${source} contains a line break or control character`, {
        hint: `remove it from the value of ${source} (a trailing newline from a file is a common cause)`,
      });
    }
    headers[name] = value;
  };
  for (const [name, value] of Object.entries(config.headers ?? {})) add(name, value, 'headers');
  for (const [name, variable] of Object.entries(config.headers_env ?? {})) {
    const value = env[variable];
    if (value === undefined || value === '') {
      throw new XdogError(ErrorCodes.CONFIG_INVALID, `header "${name}" names environment variable ${variable}, which is not set`, {
        hint: `export ${variable} before connecting`,
      });
    }
    add(name, value, variable);
  }
  return headers;
}

/** True for a value HTTP forbids in a header: any C0 control except tab, or DEL. */
function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

/** A fetch that refuses redirects, names auth failures and bounds bodies. */
export function guardedFetch(base: typeof fetch = fetch, authHint = 'check the credentials named in headers_env'): typeof fetch {
  return async (input, init) => {
    const where = new URL(String(input instanceof Request ? input.url : input)).origin;
    let response: Response;
    try {
      response = await base(input, { ...init, redirect: 'manual' });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      const cause = (error as { cause?: { message?: string; code?: string } }).cause;
      throw new XdogError(ErrorCodes.MCP_FAILED, `cannot reach the MCP server at ${where}: ${cause?.code ?? cause?.message ?? (error as Error).message}; the request was not retried`, {
        hint: 'check that the server is running and the url in mcp_servers',
      });
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new XdogError(ErrorCodes.MCP_FAILED, `MCP server at ${where} answered with a redirect (HTTP ${response.status}); redirects are not followed`, {
        hint: 'configure the final endpoint URL',
      });
    }
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      throw new XdogError(ErrorCodes.AUTH_FAILED, `MCP server at ${where} refused the request (HTTP ${response.status})`, {
        hint: authHint,
      });
    }
    if (!response.body) return response;
    const sse = response.headers.get('content-type')?.includes('text/event-stream') ?? false;
    const bounded = response.body.pipeThrough(boundedStream(LIMITS.mcpMessageBytes, where, sse));
    const body = sse ? bounded.pipeThrough(new TextDecoderStream()).pipeThrough(clampRetry()).pipeThrough(new TextEncoderStream()) : bounded;
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * Fails the stream once one message is over `limit` bytes: a JSON body as a
 * whole, or one SSE event (bytes since the last blank line), so a long-lived
 * event stream is bounded per event, not in total.
 */
export function boundedStream(limit: number, where: string, sse: boolean): TransformStream<Uint8Array, Uint8Array> {
  let size = 0;
  let previous = 0; // last byte that was not a CR
  return new TransformStream({
    transform(chunk, controller) {
      if (sse) {
        for (const byte of chunk) {
          size++;
          if (byte === 13) continue;
          if (byte === 10 && previous === 10) size = 0;
          previous = byte;
          if (size > limit) break;
        }
      } else {
        size += chunk.byteLength;
      }
      if (size > limit) {
        controller.error(
          new XdogError(ErrorCodes.LIMIT_EXCEEDED, `MCP ${sse ? 'event' : 'response'} from ${where} is over the ${limit}-byte message limit`),
        );
        return;
      }
      controller.enqueue(chunk);
    },
  });
}

/** Legacy SSE recovery waits between 50 ms and 5 s, whatever `retry:` a server asks for. */
export const RETRY_BOUNDS_MS = { min: 50, max: 5000 } as const;

/** Rewrites SSE `retry:` fields into RETRY_BOUNDS_MS; everything else passes unchanged. */
export function clampRetry(): TransformStream<string, string> {
  let partial = '';
  const rewrite = (line: string): string => {
    const match = /^retry:\s?(\d+)(\r?)$/.exec(line);
    if (!match) return line;
    const clamped = Math.min(RETRY_BOUNDS_MS.max, Math.max(RETRY_BOUNDS_MS.min, Number(match[1])));
    return `retry: ${clamped}${match[2]}`;
  };
  return new TransformStream({
    transform(chunk, controller) {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      if (lines.length > 0) controller.enqueue(lines.map(rewrite).join('\n') + '\n');
    },
    flush(controller) {
      if (partial) controller.enqueue(rewrite(partial));
    },
  });
}

/** The configured headers plus, for an OAuth server, its bearer token. */
export function requestHeaders(config: McpHttpConfig, env: NodeJS.ProcessEnv, bearer?: string): Record<string, string> {
  const headers = resolveHeaders(config, env);
  if (bearer !== undefined) {
    if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) {
      throw new XdogError(ErrorCodes.CONFIG_INVALID, 'an MCP server with oauth may not also configure an Authorization header', { hint: 'remove Authorization from headers / headers_env' });
    }
    headers.Authorization = `Bearer ${bearer}`;
  }
  return headers;
}

/** What a refused request's error suggests: an OAuth server's 401 means the token expired or was revoked; refreshing is the user's call. */
export function authHintFor(bearer?: string): string | undefined {
  return bearer === undefined ? undefined : 'the OAuth access token was refused: run xdog mcp login SERVER --refresh, or log in again';
}

/** Builds the SDK transport (the initialize era) for one configured HTTP server; `base` is the fetch a `ca_file` needs. */
export function createHttpTransport(config: McpHttpConfig, env: NodeJS.ProcessEnv, bearer?: string, base: typeof fetch = fetch): StreamableHTTPClientTransport {
  const url = checkEndpoint(config.url, config.allow_insecure_http);
  return new StreamableHTTPClientTransport(url, {
    requestInit: { headers: requestHeaders(config, env, bearer), redirect: 'manual' },
    fetch: guardedFetch(base, authHintFor(bearer)),
    reconnectionOptions: RECONNECTION,
  });
}
