/**
 * The webhook channel: a generic HTTP channel for anything else. Inbound,
 * it listens (127.0.0.1 by default) for POSTs of one message as JSON, signed
 * with HMAC-SHA256 of the raw body; outbound, it POSTs each reply (and the
 * typing indicator) to a configured URL, signed the same way. A push channel:
 * when the inbox is full the delivery is answered 503 with Retry-After, and
 * the sender keeps the message (nothing is dropped).
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCodes, LIMITS, XdogError, describeError, parseTraceCarrier, z } from '../../core/index.js';
import { defineChannelType, type OfferResult } from './contract.js';

export const SIGNATURE_HEADER = 'x-xdog-signature';

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

const WebhookSettingsSchema = z
  .object({
    /** The address to listen on; anything but a loopback address exposes the channel to the network. */
    host: z.string().min(1).default('127.0.0.1'),
    /** 0 picks a free port (`xdog claw channels status` shows it). */
    port: z.number().int().min(0).max(65535),
    path: z.string().startsWith('/').default('/xdog/inbound'),
    /** The environment variable holding the shared HMAC secret (inbound and outbound). */
    secret_env: EnvName,
    /** Where replies and typing go. */
    outbound_url: z.url({ protocol: /^https?$/ }),
    /** The longest reply text one outbound POST carries; longer replies are chunked. */
    max_message_chars: z.number().int().min(64).max(1_000_000).default(4000),
  })
  .strict();

const InboundSchema = z
  .object({
    id: z.string().min(1).max(256),
    sender: z.string().min(1).max(256),
    text: z.string(),
    /** Where replies go; the sender when absent. */
    reply_to: z.string().min(1).max(256).optional(),
  })
  .strict();

/** `sha256=<hex>` of the body under `secret`. */
export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

function signatureMatches(secret: string, body: Buffer, given: string | undefined): boolean {
  if (!given) return false;
  const expected = Buffer.from(signBody(secret, body));
  const actual = Buffer.from(given);
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
}

const STATUS_OF: Record<OfferResult, number> = { accepted: 202, duplicate: 200, refused: 403, full: 503, closed: 503, too_large: 413, empty: 400 };

export const webhookChannel = defineChannelType('webhook', WebhookSettingsSchema, (context) => {
  const { settings } = context;
  const secret = process.env[settings.secret_env];
  if (!secret) {
    throw new XdogError(ErrorCodes.CONFIG_INVALID, `claw.channels.${context.id}.settings.secret_env names ${settings.secret_env}, which is not set`, {
      hint: `export ${settings.secret_env} (a long random string shared with the sender) in the gateway's environment`,
    });
  }
  let server: http.Server | undefined;
  let url: string | undefined;
  // The inbound body: the message envelope plus the text limit.
  const maxBody = LIMITS.channelMessageBytes + 4096;

  async function readBody(request: http.IncomingMessage): Promise<Buffer | undefined> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBody) return undefined;
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const answer = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}): void => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers, ...(status === 413 ? { connection: 'close' } : {}) });
      response.end(JSON.stringify(body));
    };
    if (new URL(request.url ?? '/', 'http://x').pathname !== settings.path) return answer(404, { error: 'not found' });
    if (request.method !== 'POST') return answer(405, { error: 'use POST' }, { allow: 'POST' });
    if (Number(request.headers['content-length'] ?? 0) > maxBody) return answer(413, { error: `the body is over ${maxBody} bytes` });
    const body = await readBody(request);
    if (!body) return answer(413, { error: `the body is over ${maxBody} bytes` });
    if (!signatureMatches(secret!, body, request.headers[SIGNATURE_HEADER] as string | undefined)) return answer(401, { error: `missing or wrong ${SIGNATURE_HEADER}` });
    let parsed: z.infer<typeof InboundSchema>;
    try {
      const result = InboundSchema.safeParse(JSON.parse(body.toString('utf8')));
      if (!result.success) return answer(400, { error: `invalid message: ${result.error.issues[0]?.path.join('.') || 'body'}: ${result.error.issues[0]?.message}` });
      parsed = result.data;
    } catch {
      return answer(400, { error: 'the body is not JSON' });
    }
    const trace = parseTraceCarrier({ traceparent: request.headers.traceparent, tracestate: request.headers.tracestate });
    const result = await context.inbox.tryOffer({ id: parsed.id, sender: parsed.sender, replyTo: parsed.reply_to ?? parsed.sender, text: parsed.text, ...(trace ? { trace } : {}) });
    answer(STATUS_OF[result], { status: result }, result === 'full' || result === 'closed' ? { 'retry-after': '1' } : {});
  }

  async function post(payload: Record<string, unknown>): Promise<void> {
    const body = JSON.stringify({ channel: context.id, ...payload });
    let response: Response;
    try {
      response = await fetch(settings.outbound_url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signBody(secret!, body) },
        body,
        signal: AbortSignal.any([AbortSignal.timeout(LIMITS.channelSendTimeoutSeconds * 1000), context.signal]),
      });
    } catch (error) {
      // fetch says only "fetch failed"; the reason (ECONNREFUSED, a DNS failure, the timeout) is its cause.
      const cause = (error as { cause?: unknown }).cause;
      throw new XdogError(ErrorCodes.UNAVAILABLE, `POST ${settings.outbound_url} failed: ${describeError(cause ?? error)}`, { cause: error });
    }
    await response.body?.cancel();
    if (!response.ok) throw new XdogError(ErrorCodes.UNAVAILABLE, `${settings.outbound_url} answered ${response.status}`);
  }

  return {
    maxMessageChars: settings.max_message_chars,
    async start() {
      server = http.createServer((request, response) => {
        handle(request, response).catch((error: unknown) => {
          context.log(`an inbound request failed: ${String(error)}`);
          if (!response.headersSent) response.writeHead(500).end();
          else response.destroy();
        });
      });
      server.requestTimeout = 10_000;
      server.headersTimeout = 10_000;
      await new Promise<void>((resolve, reject) => {
        server!.once('error', (error) => reject(new XdogError(ErrorCodes.UNAVAILABLE, `channel ${context.id}: cannot listen on ${settings.host}:${settings.port}: ${error.message}`, { hint: 'pick another port in its settings' })));
        server!.listen(settings.port, settings.host, resolve);
      });
      const address = server.address() as AddressInfo;
      url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}${settings.path}`;
      context.log(`webhook listening on ${url}`);
    },
    async stop() {
      const closing = server;
      server = undefined;
      if (!closing) return;
      closing.closeAllConnections();
      await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
    send: (to, text, sendContext) => post({ type: 'message', to, text, ...(sendContext.inReplyTo ? { in_reply_to: sendContext.inReplyTo } : {}) }),
    typing: (to, on) => post({ type: 'typing', to, on }),
    sendApproval: (to, card, sendContext) =>
      post({
        type: 'approval',
        to,
        approval: { id: card.id, tool: card.tool, args: card.args, reason: card.reason, expires_at: new Date(card.expiresAt).toISOString(), replies: card.replies },
        ...(sendContext.inReplyTo ? { in_reply_to: sendContext.inReplyTo } : {}),
      }),
    describe: () => ({ url: url ?? null, outbound: settings.outbound_url }),
  };
});
