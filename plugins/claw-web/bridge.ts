/**
 * The dashboard's way to the gateway: it is a client of the gateway protocol
 * like the TUI (connectGateway), never a way around it. Calls go through one
 * shared connection (reconnected when lost, never resent); each event stream
 * of a page gets its own connection and subscription, so closing the page
 * ends exactly that subscription.
 */
import type { ServerResponse } from 'node:http';
import { ErrorCodes, XdogError, describeError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import type { GatewayConnection } from '../claw-gateway/index.js';

/** Opens a gateway connection (connectGateway with the server's locations). */
export type Connect = () => Promise<GatewayConnection>;

/** Methods a page may not call through /api/call: the transport's own, and subscriptions (a page subscribes with /api/events). */
const NOT_CALLABLE = new Set(['hello', 'ping', 'subscribe', 'unsubscribe']);

/** Notifications a subscription carries to the page, as SSE event names. */
export const FORWARDED = ['event', 'run.end', 'group.changed', 'notice', 'approval.requested', 'approval.resolved', 'schedule.run', 'session.reset', 'todos.changed', 'goal.changed', 'mcp.changed', 'skills.changed'] as const;

export class GatewayBridge {
  readonly #connect: Connect;
  #shared: Promise<GatewayConnection> | undefined;
  readonly #streams = new Set<() => void>();

  constructor(connect: Connect) {
    this.#connect = connect;
  }

  /** The shared connection, opened on first use and again after it closed. */
  async #connection(): Promise<GatewayConnection> {
    if (!this.#shared) {
      const opening = this.#connect();
      this.#shared = opening;
      opening.then(
        (connection) => connection.onClose(() => { if (this.#shared === opening) this.#shared = undefined; }),
        () => { if (this.#shared === opening) this.#shared = undefined; },
      );
    }
    return this.#shared;
  }

  /** What the gateway offers (hello): its capabilities and methods, for the page to show only what works. */
  async hello(): Promise<{ capabilities: string[]; methods: string[]; server: unknown }> {
    const { hello } = await this.#connection();
    return { capabilities: hello.capabilities, methods: hello.methods.filter((method) => !NOT_CALLABLE.has(method)), server: hello.server };
  }

  /** Calls one gateway method with the page's params; the gateway checks them (schemas, fencing, idle group) and its error comes back as it is. */
  async call(method: unknown, params: unknown): Promise<unknown> {
    if (typeof method !== 'string' || NOT_CALLABLE.has(method)) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${JSON.stringify(method)} is not a method a page may call`, { hint: 'call a method the gateway lists in hello; events come from /api/events' });
    }
    if (params === null || typeof params !== 'object' || Array.isArray(params)) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `${method}: params must be a JSON object`);
    }
    const connection = await this.#connection();
    return connection.callService(method, params as Record<string, unknown>);
  }

  /**
   * Streams a group's notifications to `response` as server-sent events,
   * through a connection of its own, until the page goes away or the
   * gateway does. A page that reads too slowly is cut (it reconnects and
   * reads state): the gateway never waits for it.
   */
  async stream(group: string | undefined, response: ServerResponse): Promise<void> {
    const connection = await this.#connect();
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      this.#streams.delete(end);
      response.end();
      void connection.close();
    };
    this.#streams.add(end);
    const send = (name: string, data: unknown): void => {
      if (ended) return;
      response.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
      if (response.writableLength > LIMITS.webEventBacklogBytes) {
        response.write(`event: cut\ndata: ${JSON.stringify({ message: `the page fell ${response.writableLength} bytes behind; reading state again` })}\n\n`);
        end();
      }
    };
    for (const name of FORWARDED) connection.on(name, (params) => send(name, params));
    connection.onClose(() => {
      send('gone', { message: 'the gateway connection closed' });
      end();
    });
    response.on('close', end);
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
    try {
      send('subscribed', await connection.call('subscribe', group === undefined ? {} : { group }));
    } catch (error) {
      send('failed', errorBody(error, true));
      end();
    }
  }

  /** Ends every event stream and the shared connection. */
  async close(): Promise<void> {
    for (const end of [...this.#streams]) end();
    const shared = this.#shared;
    this.#shared = undefined;
    if (shared) await shared.then((connection) => connection.close(), () => undefined);
  }
}

/** The hint of a failure to reach the gateway (no socket, no token file): the usual cause is a gateway that is not running. */
const GATEWAY_HINT = 'is the gateway running? `xdog claw gateway status`, then `xdog claw gateway start`';

/**
 * An error as the page gets it: code, message, hint (the gateway's own words).
 * A foreign error is `reaching` the gateway (UNAVAILABLE with the hint to start
 * it) where that is all the dashboard was doing, else a bug here (INTERNAL).
 */
export function errorBody(error: unknown, reaching = false): { error: { code: string; message: string; hint?: string } } {
  if (error instanceof XdogError) return { error: error.toJSON() };
  if (reaching) return { error: { code: ErrorCodes.UNAVAILABLE, message: `the dashboard cannot reach the gateway: ${describeError(error)}`, hint: GATEWAY_HINT } };
  return { error: { code: ErrorCodes.INTERNAL, message: describeError(error) } };
}
