/**
 * The dashboard server: node:http on 127.0.0.1 by default, serving the built
 * pages and bridging them to the gateway. Every request first passes the
 * rate limit, the Host allow-list and the Origin check (guard.ts); every API
 * request then needs the session cookie a one-time login link gave. Nothing
 * reaches the gateway before all of that passed.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { BodyError, readJsonBody } from './body.js';
import { GatewayBridge, errorBody, type Connect } from './bridge.js';
import { allowedHosts, checkHost, checkOrigin, type Refusal } from './guard.js';
import { Logins, sameSecret, sessionCookie, type WebSession } from './logins.js';
import { RateLimiter } from './rate-limit.js';
import { loadPages, type StaticFile } from './static-files.js';

/** The page may run only its own scripts and styles and talk only to this server. */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

export interface WebServerOptions {
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (0: any free one). */
  port: number;
  /** Opens a connection to the gateway. */
  connect: Connect;
  /** Reads the gateway's token: `xdog claw web open` proves with it that it may ask for a login link. */
  gatewayToken: () => string;
  /** Built pages (default: dist/web). */
  pages?: Map<string, StaticFile>;
}

export interface WebServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** True when it listens on an address other than loopback. */
  readonly exposed: boolean;
  /** A new one-time login link. */
  loginLink(): string;
  close(): Promise<void>;
}

/** Loopback addresses: only this machine reaches them. */
const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const host = options.host ?? '127.0.0.1';
  const pages = options.pages ?? loadPages();
  const logins = new Logins();
  const limiter = new RateLimiter();
  const bridge = new GatewayBridge(options.connect);
  let allowed = new Set<string>();
  let base = '';

  const refuse = (response: ServerResponse, refusal: Refusal, close = false): void => {
    const body = JSON.stringify({ error: { code: refusal.status === 429 ? ErrorCodes.LIMIT_EXCEEDED : refusal.status === 401 ? ErrorCodes.UNAUTHENTICATED : ErrorCodes.INVALID_ARGUMENT, message: refusal.message } });
    response.writeHead(refusal.status, { ...SECURITY_HEADERS, 'content-type': 'application/json', 'cache-control': 'no-store', ...(close ? { connection: 'close' } : {}), ...(refusal.status === 429 ? { 'retry-after': '1' } : {}) });
    response.end(body);
  };
  const json = (response: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void => {
    response.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
    response.end(JSON.stringify(value));
  };
  const needSession = (request: IncomingMessage): WebSession | Refusal => logins.sessionOf(request.headers.cookie) ?? { status: 401, message: 'not logged in: open a login link from `xdog claw web open`' };

  async function api(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const route = `${request.method} ${url.pathname}`;
    if (route === 'POST /api/link') {
      // Only a local program that can read the gateway's token (xdog claw web open), never a page.
      if (request.headers.origin !== undefined || request.headers['sec-fetch-site'] !== undefined) return refuse(response, { status: 403, message: 'login links are only given to `xdog claw web open`' });
      const auth = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
      let token: string;
      try {
        token = options.gatewayToken();
      } catch (error) {
        return json(response, 503, errorBody(error, true));
      }
      if (!auth || !sameSecret(auth[1], token)) return refuse(response, { status: 401, message: 'the gateway token does not match' });
      return json(response, 200, { url: `${base}/#${logins.mintLink()}` });
    }
    const origin = checkOrigin(request.headers, allowed, request.method !== 'GET');
    if (origin) return refuse(response, origin);
    if (route === 'POST /api/login') {
      const body = (await readJsonBody(request)) as { token?: unknown } | null;
      const id = typeof body?.token === 'string' ? logins.redeem(body.token) : null;
      if (id === null) return refuse(response, { status: 401, message: 'this login link was already used or has expired: run `xdog claw web open` for a new one' });
      return json(response, 200, { ok: true }, { 'set-cookie': sessionCookie(id) });
    }
    const session = needSession(request);
    if ('status' in session) return refuse(response, session);
    if (route === 'POST /api/logout') {
      logins.end(request.headers.cookie);
      return json(response, 200, { ok: true }, { 'set-cookie': `${sessionCookie('')}; Max-Age=0` });
    }
    if (route === 'GET /api/hello') return json(response, 200, { ...(await bridge.hello()), web: { url: base, exposed: !isLoopback(host), host } });
    if (route === 'POST /api/call') {
      const body = (await readJsonBody(request)) as { method?: unknown; params?: unknown } | null;
      try {
        return json(response, 200, { result: (await bridge.call(body?.method, body?.params ?? {})) ?? null });
      } catch (error) {
        return json(response, XdogError.is(error, ErrorCodes.UNAVAILABLE) ? 503 : 400, errorBody(error));
      }
    }
    if (route === 'GET /api/events') {
      if (session.streams >= LIMITS.webEventStreams) return refuse(response, { status: 429, message: `this browser already has ${session.streams} event streams open, the limit is ${LIMITS.webEventStreams}: close other dashboard tabs` });
      session.streams += 1;
      response.on('close', () => (session.streams -= 1));
      const group = url.searchParams.get('group') || undefined;
      try {
        return await bridge.stream(group, response);
      } catch (error) {
        return json(response, 503, errorBody(error, true));
      }
    }
    return refuse(response, { status: 404, message: `no ${route}` });
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!limiter.take(request.socket)) return refuse(response, { status: 429, message: `more than ${LIMITS.webRequestsPerSecond} requests a second on one connection: slow down` });
    const host = checkHost(request.headers, allowed);
    if (host) return refuse(response, host, true);
    const url = new URL(request.url ?? '/', base);
    if (url.pathname.startsWith('/api/')) {
      try {
        return await api(request, response, url);
      } catch (error) {
        if (error instanceof BodyError) return refuse(response, { status: error.status, message: error.message }, true);
        throw error;
      }
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(response, { status: 405, message: `${request.method} is not served here` });
    const origin = checkOrigin(request.headers, allowed, false);
    if (origin && request.headers.origin !== undefined) return refuse(response, origin);
    const page = pages.get(url.pathname);
    if (!page) return refuse(response, { status: 404, message: `no page ${url.pathname}` });
    response.writeHead(200, { ...SECURITY_HEADERS, 'content-type': page.type, 'content-length': String(page.body.length), 'cache-control': url.pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache' });
    response.end(request.method === 'HEAD' ? undefined : page.body);
  }

  /** This dashboard streams over SSE: an upgrade is checked like any request and then refused, so none ever reaches the gateway. */
  function upgrade(request: IncomingMessage, socket: Duplex): void {
    const refusal = checkHost(request.headers, allowed) ?? checkOrigin(request.headers, allowed, true) ?? (logins.sessionOf(request.headers.cookie) ? null : { status: 401, message: 'not logged in' }) ?? { status: 400, message: 'this dashboard has no WebSocket: events come from /api/events' };
    socket.end(`HTTP/1.1 ${refusal.status} ${http.STATUS_CODES[refusal.status] ?? 'Refused'}\r\nconnection: close\r\ncontent-type: application/json\r\n\r\n${JSON.stringify({ error: { message: refusal.message } })}`);
  }

  const server = http.createServer({ requestTimeout: LIMITS.webBodyMs * 2, headersTimeout: LIMITS.webBodyMs, maxHeaderSize: 16 * 1024 }, (request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) json(response, 500, errorBody(error));
      else response.end();
    });
  });
  server.on('upgrade', upgrade);
  server.on('clientError', (_error, socket: Socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new XdogError(ErrorCodes.CONFLICT, `port ${options.port} on ${host} is in use`, { hint: 'pick another with --port (claw.web.port for the dashboard the gateway serves), or stop what listens there' }) : error),
    );
    server.listen(options.port, host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  allowed = allowedHosts(host, port);
  base = `http://${host === 'localhost' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: base,
    host,
    port,
    exposed: !isLoopback(host),
    loginLink: () => `${base}/#${logins.mintLink()}`,
    async close() {
      await bridge.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
