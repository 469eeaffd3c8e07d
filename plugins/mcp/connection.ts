/**
 * One live connection to one MCP server: the SDK client on our transport,
 * bounded requests with the server's timeout, pagination, and errors that
 * name the server. A connection is used once: when it ends (disconnect, EOF,
 * crash, malformed frame) it stays ended; nothing reconnects or resends.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, ListRootsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ErrorCodes, LIMITS, XdogError } from '../../core/index.js';
import { createHttpTransport } from './http-transport.js';
import { timeoutMs, type McpServerConfig } from './server-config.js';
import { StdioProcessTransport, stderrText } from './stdio-transport.js';

/** Identifies this client to servers. */
export const CLIENT_INFO = { name: 'xdog', version: '0.1.0' };

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
  /** Called once when the connection ends without `close()` being asked for. */
  onLost(reason: string): void;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export class McpConnection {
  readonly client: Client;
  readonly stdio?: StdioProcessTransport;
  readonly #transport: Transport;
  readonly #id: string;
  readonly #timeout: number;
  readonly #secrets: string[];
  #closing = false;
  #ended?: string;

  private constructor(options: ConnectionOptions) {
    const { config } = options;
    this.#id = options.id;
    this.#timeout = timeoutMs(config);
    this.#secrets = Object.values(config.transport === 'stdio' ? (config.env ?? {}) : {}).filter((value) => value.length > 0);
    if (config.transport === 'stdio') {
      this.stdio = new StdioProcessTransport({
        command: config.command,
        args: config.args ?? [],
        env: config.env ?? {},
        cwd: path.resolve(options.cwd, config.cwd ?? '.'),
      });
      this.#transport = this.stdio;
    } else {
      this.#transport = createHttpTransport(config, options.env, options.bearer);
    }
    const roots = config.roots ?? [];
    this.client = new Client(CLIENT_INFO, {
      // Roots are the only client capability: no sampling, elicitation or tasks.
      capabilities: roots.length > 0 ? { roots: { listChanged: false } } : {},
    });
    if (roots.length > 0) {
      const disclosed = roots.map((root) => ({ uri: root.uri, ...(root.name ? { name: root.name } : {}) }));
      this.client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: disclosed }));
    }
    this.client.onclose = () => {
      this.#ended ??= this.#describeEnd();
      if (!this.#closing) options.onLost(this.#ended);
    };
  }

  /** A connection that has not started yet: nothing runs until `open()`. */
  static create(options: ConnectionOptions): McpConnection {
    return new McpConnection(options);
  }

  /** Starts the transport and runs the initialize handshake; `close()` during it ends both. */
  async open(): Promise<void> {
    try {
      await this.client.connect(this.#transport, { timeout: this.#timeout });
    } catch (error) {
      const failure = this.#toError(error, 'initialize');
      await this.close();
      throw failure;
    }
  }

  /** The negotiated protocol version. */
  get protocolVersion(): string | undefined {
    return (this.#transport as { protocolVersion?: string }).protocolVersion;
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
    try {
      return await this.client.request({ method, ...(params ? { params } : {}) } as never, LooseResult, {
        timeout: this.#timeout,
        signal: options.signal,
      });
    } catch (error) {
      throw this.#toError(error, method);
    }
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
      await this.client.close();
    } finally {
      await this.#transport.close();
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
    if (XdogError.is(error)) return error;
    const where = `MCP server "${this.#id}" (${method})`;
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
