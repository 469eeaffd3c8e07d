/**
 * The 2026-07-28 wire, below the protocol: one JSON-RPC request in, its
 * response out. The SDK (1.x) speaks only the initialize era, so this is ours:
 * over stdio, frames on the server process's pipes (the same transport the
 * legacy path uses); over HTTP, one POST per request with the request
 * metadata headers, answered by JSON or by an SSE stream scoped to it. Every
 * request has a deadline; a cancelled one is never re-sent.
 */
import { readFileSync, statSync } from 'node:fs';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCodes, LIMITS, XdogError } from '../../core/index.js';
import { standardHeaders } from './header-mirrors.js';
import { authHintFor, checkEndpoint, guardedFetch, requestHeaders } from './http-transport.js';
import type { McpHttpConfig } from './server-config.js';
import type { StdioProcessTransport } from './stdio-transport.js';

/** A JSON-RPC error answered by the server (code, message, data), with the HTTP status when there was one. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** An HTTP rejection that carried no JSON-RPC error: a legacy server's way of saying "not my protocol". */
export class HttpRejection extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status} without a JSON-RPC error`);
  }
}

export interface PeerRequest {
  method: string;
  params: Record<string, unknown>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Extra HTTP headers (the `Mcp-Param-*` mirrors); ignored on stdio. */
  headers?: Record<string, string>;
}

/** One transport of the modern wire. */
export interface ModernPeer {
  request(request: PeerRequest): Promise<Record<string, unknown>>;
  /** Called once when the peer ends on its own (process exit, ...). */
  onclose?: () => void;
}

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
}

/**
 * JSON-RPC over a stdio server's pipes. The transport is already started;
 * `detach()` hands it back untouched (the legacy SDK client takes it over
 * after a probe that found an initialize-era server).
 */
export class StdioPeer implements ModernPeer {
  onclose?: () => void;
  readonly #transport: StdioProcessTransport;
  readonly #pending = new Map<number, Pending>();
  #next = 1;
  #ended?: string;

  /** `describeEnd` says why the process ended (exit status, its stderr tail, redacted). */
  constructor(transport: StdioProcessTransport, describeEnd: () => string) {
    this.#transport = transport;
    transport.onmessage = (message) => this.#receive(message);
    transport.onclose = () => {
      this.#ended = describeEnd();
      for (const pending of this.#pending.values()) pending.reject(new XdogError(ErrorCodes.MCP_FAILED, `connection lost (${this.#ended}); the request was not retried`));
      this.#pending.clear();
      this.onclose?.();
    };
  }

  /** Stops listening; the transport stays open for whoever takes it next. */
  detach(): void {
    this.#transport.onmessage = undefined;
    this.#transport.onclose = undefined;
  }

  async request({ method, params, timeoutMs, signal }: PeerRequest): Promise<Record<string, unknown>> {
    if (this.#ended) throw new XdogError(ErrorCodes.MCP_FAILED, `connection lost (${this.#ended}); the request was not retried`);
    const id = this.#next++;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const cancel = (reason: string, error: Error) => {
        if (!this.#pending.delete(id)) return;
        cleanup();
        // The server is told to stop; the request itself is never sent again.
        void this.#transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } } as JSONRPCMessage).catch(() => undefined);
        reject(error);
      };
      const timer = setTimeout(() => cancel('timeout', new XdogError(ErrorCodes.MCP_FAILED, `timed out after ${timeoutMs / 1000} s; the request was cancelled, not retried`, { hint: 'raise this server\'s timeout in mcp_servers if it is just slow', details: { timeout: true } })), timeoutMs);
      const onAbort = () => cancel('cancelled by the client', new XdogError(ErrorCodes.ABORTED, 'was cancelled; it was not retried'));
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      if (signal?.aborted) return reject(new XdogError(ErrorCodes.ABORTED, 'was cancelled before it was sent'));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(id, {
        resolve: (result) => (cleanup(), resolve(result)),
        reject: (error) => (cleanup(), reject(error)),
      });
      this.#transport.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage).catch((error: Error) => {
        if (!this.#pending.delete(id)) return;
        cleanup();
        reject(error);
      });
    });
  }

  #receive(message: JSONRPCMessage): void {
    const record = message as Record<string, unknown>;
    if ('method' in record) {
      // 2026-07-28 servers never send requests (input arrives as input_required); answer one so it does not hang.
      if ('id' in record) void this.#transport.send({ jsonrpc: '2.0', id: record.id, error: { code: -32601, message: 'server-to-client requests are not part of MCP 2026-07-28; use input_required results' } } as JSONRPCMessage).catch(() => undefined);
      return; // notifications (progress, log messages) carry nothing xdog acts on
    }
    const id = typeof record.id === 'number' ? record.id : Number.NaN;
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    pending[('error' in record ? 'reject' : 'resolve') as 'resolve'](settle(record) as never);
  }
}

/** A response's result, or its error as an RpcError. */
function settle(response: Record<string, unknown>, status?: number): Record<string, unknown> | RpcError {
  if ('error' in response) {
    const error = (response.error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
    return new RpcError(typeof error.code === 'number' ? error.code : -32603, typeof error.message === 'string' ? error.message : 'unknown error', error.data, status);
  }
  const result = response.result;
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return new RpcError(-32603, 'the response has no result object', undefined, status);
  return result as Record<string, unknown>;
}

/** Streamable HTTP as 2026-07-28 has it: no session, no GET stream, one POST per request. */
export class HttpPeer implements ModernPeer {
  readonly #url: URL;
  readonly #headers: Record<string, string>;
  readonly #fetch: typeof fetch;
  readonly #protocolVersion: string;
  readonly #clientInfo: string;
  #next = 1;

  private constructor(url: URL, headers: Record<string, string>, fetcher: typeof fetch, protocolVersion: string, clientInfo: string) {
    this.#url = url;
    this.#headers = headers;
    this.#fetch = fetcher;
    this.#protocolVersion = protocolVersion;
    this.#clientInfo = clientInfo;
  }

  static async create(config: McpHttpConfig, env: NodeJS.ProcessEnv, options: { bearer?: string; protocolVersion: string; clientInfo: string }): Promise<HttpPeer> {
    const url = checkEndpoint(config.url, config.allow_insecure_http);
    const headers = requestHeaders(config, env, options.bearer);
    const fetcher = guardedFetch(await baseFetch(config), authHintFor(options.bearer));
    return new HttpPeer(url, headers, fetcher, options.protocolVersion, options.clientInfo);
  }

  async request({ method, params, timeoutMs, signal, headers }: PeerRequest): Promise<Record<string, unknown>> {
    const id = this.#next++;
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let response: Response;
    try {
      response = await this.#fetch(this.#url, {
        method: 'POST',
        headers: {
          ...this.#headers,
          ...(headers ?? {}),
          ...standardHeaders(method, params),
          Accept: 'application/json, text/event-stream',
          'Content-Type': 'application/json',
          'MCP-Protocol-Version': this.#protocolVersion,
          'Mcp-Client-Info': this.#clientInfo,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        signal: combined,
      });
      return await this.#read(response, id);
    } catch (error) {
      if (deadline.aborted && !signal?.aborted) {
        throw new XdogError(ErrorCodes.MCP_FAILED, `timed out after ${timeoutMs / 1000} s; the request was cancelled, not retried`, { hint: 'raise this server\'s timeout in mcp_servers if it is just slow', details: { timeout: true } });
      }
      if (signal?.aborted) throw new XdogError(ErrorCodes.ABORTED, 'was cancelled; it was not retried');
      throw error;
    }
  }

  async #read(response: Response, id: number): Promise<Record<string, unknown>> {
    const type = response.headers.get('content-type') ?? '';
    if (type.includes('text/event-stream') && response.ok) return this.#fromStream(response, id);
    const text = response.body ? await response.text() : '';
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const record = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
    if (!response.ok && !(record && 'error' in record)) throw new HttpRejection(response.status);
    if (!record) throw new XdogError(ErrorCodes.MCP_FAILED, `answered HTTP ${response.status} with a body that is not a JSON-RPC response`);
    const outcome = settle(record, response.status);
    if (outcome instanceof RpcError) throw outcome;
    return outcome;
  }

  /** Reads the request's SSE stream until its response; notifications before it are skipped. */
  async #fromStream(response: Response, id: number): Promise<Record<string, unknown>> {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new XdogError(ErrorCodes.MCP_FAILED, 'ended its event stream before the response; the request was not retried');
        buffer += value;
        let end: number;
        while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
          const data = event
            .split(/\r?\n/)
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).replace(/^ /, ''))
            .join('\n');
          if (!data) continue;
          const message = JSON.parse(data) as Record<string, unknown>;
          if (message.id !== id || 'method' in message) continue;
          const outcome = settle(message, response.status);
          if (outcome instanceof RpcError) throw outcome;
          return outcome;
        }
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }
}

/** The fetch an HTTP server is reached with: the global one, or one trusting only `ca_file`. */
export async function baseFetch(config: McpHttpConfig): Promise<typeof fetch> {
  if (!config.ca_file) return fetch;
  const ca = readCaFile(config.ca_file);
  // Loaded only for a server with a private CA.
  const undici = await import('undici');
  const dispatcher = new undici.Agent({ connect: { ca } });
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) => undici.fetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
}

function readCaFile(file: string): string {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new XdogError(ErrorCodes.CONFIG_INVALID, `ca_file ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { hint: 'give the path of a PEM file with the CA certificates of this server' });
  }
  if (size > LIMITS.mcpCaFileBytes) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `ca_file ${file} is over ${LIMITS.mcpCaFileBytes} bytes`, { hint: 'keep only the CA certificates this server needs' });
  const text = readFileSync(file, 'utf8');
  if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new XdogError(ErrorCodes.CONFIG_INVALID, `ca_file ${file} holds no PEM certificate`, { hint: 'give a PEM file (-----BEGIN CERTIFICATE-----)' });
  return text;
}
