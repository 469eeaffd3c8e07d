/**
 * A local stand-in for a vendor's HTTP API (127.0.0.1 only): each request is
 * answered by the next scripted reply, in the vendor's SSE wire format, and
 * every request is recorded.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AssistantStreamEvent, CredentialStore, ModelContext } from '../../../core/index.js';

export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON body (for error replies). */
  json?: unknown;
  /** SSE frames, written one per chunk: objects are sent as `data: <json>`, strings verbatim. */
  sse?: Array<unknown>;
  /** Destroy the socket after this many SSE frames (a dropped connection). */
  dropAfter?: number;
  /** Never finish the reply (for abort tests). */
  hang?: boolean;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface VendorServer {
  url: string;
  requests: RecordedRequest[];
  /** Resolves when a request's socket closed before its reply finished. */
  closedEarly: Promise<void>;
  close(): Promise<void>;
}

/** `event:`-named SSE frame (Anthropic style). */
export function namedEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export async function startVendorServer(replies: ScriptedReply[] | ((request: RecordedRequest) => ScriptedReply)): Promise<VendorServer> {
  const requests: RecordedRequest[] = [];
  let markClosed!: () => void;
  const closedEarly = new Promise<void>((resolve) => (markClosed = resolve));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: text ? safeJson(text) : undefined };
      requests.push(recorded);
      const reply = typeof replies === 'function' ? replies(recorded) : replies[requests.length - 1];
      if (!reply) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'no scripted reply left' } }));
        return;
      }
      res.on('close', () => {
        if (!res.writableFinished) markClosed();
      });
      if (reply.sse === undefined) {
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        if (reply.hang) return;
        res.end(JSON.stringify(reply.json ?? {}));
        return;
      }
      res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
      reply.sse.forEach((frame, index) => {
        if (reply.dropAfter !== undefined && index >= reply.dropAfter) return;
        res.write(typeof frame === 'string' ? frame : `data: ${JSON.stringify(frame)}\n\n`);
      });
      if (reply.dropAfter !== undefined) {
        // Let the written frames reach the client, then cut the connection.
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      if (reply.hang) return;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    closedEarly,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Collects a stream's events. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const events: T[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** A request with a system prompt, one user message and one tool, as the provider tests send it. */
export const context: ModelContext = {
  systemPrompt: 'be brief',
  messages: [{ role: 'user', content: 'list files', timestamp: 1 }],
  tools: [{ name: 'bash', description: 'run a command', parameters: { type: 'object', properties: { command: { type: 'string' } } } }],
};

/** The final event of a provider stream (`done` or `error`); anything else is a broken stream. */
export function last(events: AssistantStreamEvent[]) {
  const end = events.at(-1)!;
  if (end.type !== 'done' && end.type !== 'error') throw new Error(`stream ended with ${end.type}`);
  return end;
}

/** A credential store with nothing in it: keys come from the environment only. */
export const noStore: CredentialStore = { get: () => undefined, set: () => {}, delete: () => false, providers: () => [] };

/** The retry policy with near-zero backoff (Retry-After is still honoured), so retry tests run fast. */
export const fastPolicy = { attempts: 3, baseDelayMs: 1, maxDelayMs: 5000, random: () => 0 };
