/**
 * One live connection to one MCP server: the 2026-07-28 protocol when the
 * server speaks it (found by a `server/discover` probe, spoken by our own
 * wire), else the SDK client and its initialize handshake; bounded requests
 * with the server's timeout, pagination, and errors that name the server. A
 * connection is used once: when it ends (disconnect, EOF, crash, malformed
 * frame) it stays ended; nothing reconnects or resends.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ErrorCode, ListRootsRequestSchema, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ErrorCodes, LIMITS, XdogError, type SandboxConfig, type Telemetry, type TraceCarrier } from '../../core/index.js';
import { resolvePolicy } from '../sandbox/index.js';
import { answerClientRequest, clientCapabilities, type McpClientHandlers, type McpRoots } from './client-requests.js';
import { tracedHandlers, tracedRequest, type McpSpanTarget } from './request-span.js';
import { createHttpTransport } from './http-transport.js';
import { HttpPeer, RpcError, StdioPeer, baseFetch, type ModernPeer } from './modern-peers.js';
import { CLIENT_INFO, MODERN_VERSION, ModernSession, probe } from './modern-session.js';
import { timeoutMs, type McpServerConfig } from './server-config.js';
import { StdioProcessTransport, stderrText } from './stdio-transport.js';

export { CLIENT_INFO };

/** Any JSON object: results are validated by our own code, not the SDK's stricter shapes. */
const LooseResult = z.looseObject({});
type LooseResult = Record<string, unknown>;

export interface ConnectionOptions {
  id: string;
  config: McpServerConfig;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** An OAuth access token for an HTTP server (sent as `Authorization: Bearer`; never logged). */
  bearer?: string;
  /** The sandbox of a stdio server whose entry sets none. */
  sandbox?: SandboxConfig;
  /** How the host answers elicitation and sampling (absent: declined / refused). */
  handlers?: McpClientHandlers;
  /** Called once when the connection ends without `close()` being asked for. */
  onLost(reason: string): void;
  /** The telemetry its requests are traced with, when there is one (asked per request). */
  telemetry?: () => Telemetry | undefined;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Extra HTTP headers of this request (a tool's `Mcp-Param-*` mirrors; the modern HTTP wire only). */
  headers?: Record<string, string>;
}

/** The era the probe found: the 2026-07-28 protocol, or the initialize handshake. */
export type McpEra = 'modern' | 'legacy';

export class McpConnection {
  readonly stdio?: StdioProcessTransport;
  #client?: Client;
  #transport?: Transport;
  #modern?: ModernSession;
  #legacyWhy?: string;
  readonly #options: ConnectionOptions;
  readonly #id: string;
  readonly #timeout: number;
  readonly #secrets: string[];
  readonly #roots: McpRoots;
  readonly #handlers: McpClientHandlers;
  readonly #telemetry?: () => Telemetry | undefined;
  readonly #transportKind: 'stdio' | 'http';
  /** The trace contexts of this connection's traced requests in flight. */
  readonly #inFlight = new Set<TraceCarrier>();
  #notify?: (method: string, params?: Record<string, unknown>) => void;
  #closing = false;
  #ended?: string;

  private constructor(options: ConnectionOptions) {
    const { config } = options;
    this.#options = options;
    this.#id = options.id;
    this.#telemetry = options.telemetry;
    this.#transportKind = config.transport === 'stdio' ? 'stdio' : 'http';
    this.#timeout = timeoutMs(config);
    this.#secrets = Object.values(config.transport === 'stdio' ? (config.env ?? {}) : {}).filter((value) => value.length > 0);
    this.#roots = (config.roots ?? []).map((root) => ({ uri: root.uri, ...(root.name ? { name: root.name } : {}) }));
    this.#handlers = tracedHandlers(options.handlers ?? {}, {
      telemetry: () => this.#telemetry?.(),
      target: () => this.#spanTarget(),
      // The 2026-07-28 wire answers inside the request it serves (its span is active); the initialize-era wire
      // hears a server request beside it, with no link to it: the one traced request in flight is the one it serves.
      parent: () => (this.#modern || this.#inFlight.size !== 1 ? undefined : this.#inFlight.values().next().value),
    });
    if (config.transport === 'stdio') {
      this.stdio = new StdioProcessTransport({
        command: config.command,
        args: config.args ?? [],
        env: config.env ?? {},
        cwd: path.resolve(options.cwd, config.cwd ?? '.'),
        workspace: options.cwd,
        sandbox: resolvePolicy(config.sandbox ?? options.sandbox, options.cwd),
      });
      this.#transport = this.stdio;
    }
  }

  /** A connection that has not started yet: nothing runs until `open()`. */
  static create(options: ConnectionOptions): McpConnection {
    return new McpConnection(options);
  }

  /**
   * Starts the transport, probes `server/discover`, and either stays on the
   * 2026-07-28 protocol or runs the initialize handshake (only when the probe
   * says the server is initialize-era); `close()` during it ends both.
   */
  async open(): Promise<void> {
    const session = { server: this.#id, timeoutMs: this.#timeout, roots: this.#roots, handlers: this.#handlers, transport: this.#transportKind };
    try {
      let peer: ModernPeer;
      const { config } = this.#options;
      if (this.stdio) {
        await this.stdio.start();
        peer = new StdioPeer(this.stdio, () => (this.#ended ??= this.#describeEnd()));
      } else if (config.transport === 'http') {
        peer = await HttpPeer.create(config, this.#options.env, { ...(this.#options.bearer === undefined ? {} : { bearer: this.#options.bearer }), protocolVersion: MODERN_VERSION, clientInfo: `${CLIENT_INFO.name}/${CLIENT_INFO.version}` });
      } else {
        throw unsupportedTransport(this.#id, config.transport);
      }
      if (this.#closing) throw new XdogError(ErrorCodes.CLOSED, `MCP server "${this.#id}" was disconnected while connecting`);
      const outcome = await probe(peer, session);
      if (outcome.era === 'modern') {
        this.#modern = new ModernSession(peer, outcome.discover, session);
        peer.onclose = () => this.#onTransportClosed();
        return;
      }
      this.#legacyWhy = outcome.why;
      await this.#openLegacy(peer);
    } catch (error) {
      const failure = this.#toError(error, this.#modern || this.#legacyWhy ? 'initialize' : 'server/discover');
      await this.close();
      throw failure;
    }
  }

  /** The initialize era, on the SDK client: over the already started stdio process, or a new HTTP session. */
  async #openLegacy(peer: ModernPeer): Promise<void> {
    const { config } = this.#options;
    let transport: Transport;
    if (this.stdio && peer instanceof StdioPeer) {
      peer.detach();
      transport = new StartedTransport(this.stdio);
    } else if (config.transport === 'http') {
      transport = createHttpTransport(config, this.#options.env, this.#options.bearer, await baseFetch(config));
      this.#transport = transport;
    } else {
      throw unsupportedTransport(this.#id, config.transport);
    }
    const client = new Client(CLIENT_INFO, { capabilities: clientCapabilities(this.#roots, this.#handlers) });
    const answer = (method: string) => async (request: { params?: unknown }, extra: { signal: AbortSignal }) =>
      (await answerClientRequest(this.#id, method, request.params, { roots: this.#roots, handlers: this.#handlers, signal: extra.signal, deadlineMs: this.#timeout })) as never;
    if (this.#roots.length > 0) client.setRequestHandler(ListRootsRequestSchema, answer('roots/list'));
    client.setRequestHandler(ElicitRequestSchema, answer('elicitation/create'));
    if (this.#handlers.sample) client.setRequestHandler(CreateMessageRequestSchema, answer('sampling/createMessage'));
    client.onclose = () => this.#onTransportClosed();
    client.fallbackNotificationHandler = async (notification) => this.#notify?.(notification.method, notification.params as Record<string, unknown> | undefined);
    this.#client = client;
    await client.connect(transport, { timeout: this.#timeout });
  }

  #onTransportClosed(): void {
    this.#ended ??= this.#describeEnd();
    if (!this.#closing) this.#options.onLost(this.#ended);
  }

  /** The protocol era in use (after `open()`). */
  get era(): McpEra | undefined {
    return this.#modern ? 'modern' : this.#client ? 'legacy' : undefined;
  }

  /** Why the probe chose the initialize handshake, when it did. */
  get legacyReason(): string | undefined {
    return this.#legacyWhy;
  }

  /** The protocol version in use. */
  get protocolVersion(): string | undefined {
    if (this.#modern) return MODERN_VERSION;
    return (this.#transport as { protocolVersion?: string } | undefined)?.protocolVersion;
  }

  /** The server's declared capabilities. */
  get capabilities(): Record<string, unknown> {
    return (this.#modern ? this.#modern.discover.capabilities : this.#client?.getServerCapabilities()) ?? {};
  }

  /** The server's self-reported name and version (display only). */
  get serverInfo(): { name: string; version: string } | undefined {
    if (this.#modern) return this.#modern.discover.serverInfo;
    const info = this.#client?.getServerVersion();
    return info ? { name: info.name, version: info.version } : undefined;
  }

  /** Hears notification methods (list changes); the 2026-07-28 wire has none without a subscription. */
  onNotification(listener: (method: string, params?: Record<string, unknown>) => void): void {
    this.#notify = listener;
  }

  get ended(): string | undefined {
    return this.#ended;
  }

  /** One request; errors become XdogErrors naming the server and method. */
  async request(method: string, params: Record<string, unknown> | undefined, options: RequestOptions = {}): Promise<LooseResult> {
    if (this.#ended) {
      throw new XdogError(ErrorCodes.MCP_FAILED, `MCP server "${this.#id}" is not connected: ${this.#ended}`, {
        hint: `it is never reconnected behind your back: run the command again (xdog agent chat --mcp ${this.#id}, xdog mcp ...), or in the SDK call registry.connect("${this.#id}")`,
      });
    }
    const send = async (sent: Record<string, unknown> | undefined) => {
      try {
        if (this.#modern) return await this.#modern.request(method, sent, options);
        if (!this.#client) throw new XdogError(ErrorCodes.INVALID_STATE, `MCP server "${this.#id}" is not open`);
        return await this.#client.request({ method, ...(sent ? { params: sent } : {}) } as never, LooseResult, {
          timeout: this.#timeout,
          signal: options.signal,
        });
      } catch (error) {
        throw this.#toError(error, method);
      }
    };
    const telemetry = this.#telemetry?.();
    if (!telemetry) return send(params);
    return tracedRequest(telemetry, this.#spanTarget(), method, params, async (sent, carrier) => {
      this.#inFlight.add(carrier);
      try {
        return await send(sent);
      } finally {
        this.#inFlight.delete(carrier);
      }
    });
  }

  #spanTarget(): McpSpanTarget {
    return { server: this.#id, transport: this.#transportKind, ...(this.protocolVersion ? { protocolVersion: this.protocolVersion } : {}) };
  }

  /** Follows `nextCursor` through every page of a list, within the catalog bounds. */
  async paginate(method: string, key: string, options: RequestOptions = {}): Promise<unknown[]> {
    const items: unknown[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page >= LIMITS.mcpCatalogPages) {
        throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `MCP server "${this.#id}": ${method} took more than ${LIMITS.mcpCatalogPages} pages`);
      }
      const result = await this.request(method, cursor === undefined ? undefined : { cursor }, options);
      const list = result[key];
      if (!Array.isArray(list)) {
        throw new XdogError(ErrorCodes.MCP_FAILED, `MCP server "${this.#id}": ${method} result has no "${key}" array`);
      }
      items.push(...list);
      if (items.length > LIMITS.mcpCatalogEntries) {
        throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `MCP server "${this.#id}": ${method} lists more than ${LIMITS.mcpCatalogEntries} entries`);
      }
      const next = result.nextCursor;
      if (next === undefined || next === null) return items;
      if (typeof next !== 'string' || seen.has(next)) {
        throw new XdogError(ErrorCodes.MCP_FAILED, `MCP server "${this.#id}": ${method} returned an invalid or repeated cursor`);
      }
      seen.add(next);
      cursor = next;
    }
  }

  /** Ends the connection and, for stdio, terminates and reaps the server's process group. */
  async close(): Promise<void> {
    this.#closing = true;
    this.#ended ??= 'disconnected';
    try {
      await this.#endHttpSession();
      await this.#client?.close();
    } finally {
      await this.#transport?.close();
    }
  }

  /**
   * Tells an HTTP server the session is over (DELETE with its session id), so
   * it frees it now rather than at its own timeout. A refusal or a slow answer
   * does not hold up close: the transport's close aborts what is left.
   */
  async #endHttpSession(): Promise<void> {
    const transport = this.#transport;
    if (!(transport instanceof StreamableHTTPClientTransport) || !transport.sessionId) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.min(LIMITS.mcpSessionEndMs, this.#timeout))));
    try {
      await Promise.race([transport.terminateSession().catch(() => undefined), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  #describeEnd(): string {
    const reason = this.stdio?.endReason ?? 'the server closed the connection';
    // Redact before cutting, so a secret split by the cut cannot show its tail.
    const stderr = this.#redact(this.stdio ? stderrText(this.stdio.stderr).trim() : '');
    if (!stderr) return reason;
    const limit = LIMITS.mcpStderrShownChars;
    const shown = stderr.length > limit ? `[${stderr.length - limit} earlier characters of stderr not shown]\n${stderr.slice(-limit)}` : stderr;
    return `${reason}; stderr: ${shown}`;
  }

  /** Configured env values never reach status or errors, even when a server prints them. */
  #redact(text: string): string {
    return this.#secrets.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
  }

  #toError(error: unknown, method: string): XdogError {
    const where = `MCP server "${this.#id}" (${method})`;
    if (XdogError.is(error)) {
      // The modern wire's own failures name no server yet.
      if (error.message.startsWith('MCP server') || error.message.startsWith('cannot reach') || error.message.startsWith('MCP endpoint')) return error;
      return new XdogError(error.code, `${where} ${error.message}`, { ...(error.hint ? { hint: error.hint } : {}), ...(error.details ? { details: error.details } : {}), cause: error });
    }
    if (error instanceof RpcError) return new XdogError(ErrorCodes.MCP_FAILED, `${where} failed: ${error.message}`, { details: { mcpCode: error.code } });
    if (error instanceof McpError) {
      if (error.code === ErrorCode.RequestTimeout) {
        return new XdogError(ErrorCodes.MCP_FAILED, `${where} timed out after ${this.#timeout / 1000} s; the request was cancelled, not retried`, {
          hint: 'raise this server\'s timeout in mcp_servers if it is just slow',
        });
      }
      if (error.code === ErrorCode.ConnectionClosed) {
        this.#ended ??= this.#describeEnd();
        return new XdogError(ErrorCodes.MCP_FAILED, `${where} failed: connection lost (${this.#ended}); the request was not retried`, {
          hint: 'check the server, then connect it again explicitly',
        });
      }
      return new XdogError(ErrorCodes.MCP_FAILED, `${where} failed: ${error.message}`, { details: { mcpCode: error.code } });
    }
    const name = (error as Error)?.name;
    if (name === 'AbortError' || (error as Error)?.message?.includes('aborted')) {
      return new XdogError(ErrorCodes.ABORTED, `${where} was cancelled; it was not retried`);
    }
    return new XdogError(ErrorCodes.MCP_FAILED, `${where} failed: ${(error as Error)?.message ?? String(error)}`);
  }
}

/**
 * The stdio transport handed to the SDK client after the probe started it:
 * everything passes through, but `start()` does not spawn a second process.
 */
class StartedTransport implements Transport {
  constructor(private readonly inner: StdioProcessTransport) {}
  async start(): Promise<void> {}
  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  set onmessage(handler: ((message: JSONRPCMessage) => void) | undefined) {
    this.inner.onmessage = handler;
  }
  get onmessage(): ((message: JSONRPCMessage) => void) | undefined {
    return this.inner.onmessage;
  }
  set onclose(handler: (() => void) | undefined) {
    this.inner.onclose = handler;
  }
  get onclose(): (() => void) | undefined {
    return this.inner.onclose;
  }
  set onerror(handler: ((error: Error) => void) | undefined) {
    this.inner.onerror = handler;
  }
  get onerror(): ((error: Error) => void) | undefined {
    return this.inner.onerror;
  }
  get protocolVersion(): string | undefined {
    return this.inner.protocolVersion;
  }
  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion(version);
  }
}

/** A transport the config named that this client does not speak (the config schema offers stdio and http). */
function unsupportedTransport(id: string, transport: string): XdogError {
  return new XdogError(ErrorCodes.UNSUPPORTED, `MCP server "${id}": transport "${transport}" is not supported`, { hint: 'use transport: stdio or transport: http in mcp_servers' });
}
