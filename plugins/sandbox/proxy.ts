/**
 * The allow-list proxy of `network: { allow: [hosts] }`: an HTTP proxy on a
 * Unix socket outside the sandbox. The sandbox has its own network namespace
 * (only its own loopback); a forwarder inside (forwarder-main.ts) relays
 * 127.0.0.1:3128 to this socket, so this proxy is the only way out. It serves
 * CONNECT tunnels (https and any TCP) and absolute-form HTTP requests to
 * hosts on the list (exact names, or "*.domain" for its subdomains), and
 * answers 403 for every other host. Ports are not restricted.
 */
import http from 'node:http';
import net from 'node:net';
import { LIMITS } from '../../core/index.js';

/** True when `host` is on the list: an exact name (case-insensitive) or a subdomain of a "*." entry. */
export function hostAllowed(host: string, allow: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  return allow.some((entry) => {
    const wanted = entry.toLowerCase();
    return wanted.startsWith('*.') ? name.endsWith(wanted.slice(1)) && name.length > wanted.length - 1 : name === wanted;
  });
}

/** host and port of a CONNECT target ("host:443", "[::1]:443"). */
function connectTarget(target: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(target);
  if (!match) return undefined;
  const port = Number(match[2]);
  return port > 0 && port < 65536 ? { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port } : undefined;
}

function refuse(socket: net.Socket, status: string, reason: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`);
}

export interface AllowProxy {
  socketPath: string;
  close(): Promise<void>;
}

/** Starts a proxy on `socketPath` that lets only `allow` through. */
export async function startAllowProxy(socketPath: string, allow: readonly string[]): Promise<AllowProxy> {
  const denied = (host: string) => `xdog sandbox: ${host} is not in this sandbox's network allow list (${allow.join(', ')})\n`;
  const sockets = new Set<net.Socket>();
  const server = http.createServer({ headersTimeout: LIMITS.sandboxProxyHeaderTimeoutMs, requestTimeout: 0 });
  server.maxConnections = LIMITS.sandboxProxyConnections;
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('connect', (request: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const target = connectTarget(request.url ?? '');
    if (!target) return refuse(client, '400 Bad Request', 'xdog sandbox: CONNECT wants host:port\n');
    if (!hostAllowed(target.host, allow)) return refuse(client, '403 Forbidden', denied(target.host));
    const upstream = net.connect(target.port, target.host);
    sockets.add(upstream);
    upstream.once('close', () => sockets.delete(upstream));
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('error', (error) => (client.writable ? refuse(client, '502 Bad Gateway', `xdog sandbox: ${target.host}:${target.port}: ${error.message}\n`) : client.destroy()));
    client.once('error', () => upstream.destroy());
    client.once('close', () => upstream.destroy());
  });
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    let url: URL;
    try {
      url = new URL(request.url ?? '');
    } catch {
      response.writeHead(400, { 'Content-Type': 'text/plain' }).end('xdog sandbox: the proxy wants an absolute http:// URL or CONNECT\n');
      return;
    }
    if (url.protocol !== 'http:') {
      response.writeHead(400, { 'Content-Type': 'text/plain' }).end('xdog sandbox: only http:// requests and CONNECT go through the proxy\n');
      return;
    }
    if (!hostAllowed(url.hostname, allow)) {
      response.writeHead(403, { 'Content-Type': 'text/plain' }).end(denied(url.hostname));
      return;
    }
    const headers = { ...request.headers };
    delete headers['proxy-connection'];
    delete headers['proxy-authorization'];
    const upstream = http.request({ host: url.hostname, port: url.port || 80, method: request.method, path: `${url.pathname}${url.search}`, headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.once('error', (error) => {
      if (!response.headersSent) response.writeHead(502, { 'Content-Type': 'text/plain' });
      response.end(`xdog sandbox: ${url.host}: ${error.message}\n`);
    });
    request.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
