/**
 * A local stand-in of the WeChat iLink bot API, written from its public
 * description: QR login (get_bot_qrcode, get_qrcode_status), long-poll
 * getupdates with a cursor, sendmessage, getconfig (typing ticket) and
 * sendtyping. Failures travel in the body (`ret`), as the real API does.
 * Messages are handed out at most `batch` per poll.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandinSent {
  to: string;
  contextToken: string;
  text: string;
}

export interface ILinkStandin {
  url: string;
  token: string;
  /** Messages from users not yet handed out by getupdates. */
  pending(): number;
  sent: StandinSent[];
  typing: Array<{ user: string; status: number }>;
  polls: number;
  /** The cursor (get_updates_buf) of every poll, in order. */
  cursors: string[];
  /** Queues a text message from `user`. */
  inject(user: string, text: string): void;
  close(): Promise<void>;
}

export async function startILinkStandin(options: { batch?: number; holdMs?: number } = {}): Promise<ILinkStandin> {
  const token = 'bot-token-1';
  const batch = options.batch ?? 10;
  const queue: Array<Record<string, unknown>> = [];
  let delivered = 0;
  let nextId = 7448678501208393000;
  let statusCalls = 0;
  const waiters = new Set<() => void>();
  const state = { sent: [] as StandinSent[], typing: [] as Array<{ user: string; status: number }>, polls: 0, cursors: [] as string[] };

  const json = (response: http.ServerResponse, body: unknown): void => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://standin');
      if (request.method === 'GET' && url.pathname === '/ilink/bot/get_bot_qrcode') return json(response, { qrcode: 'qr-1', qrcode_img_content: 'https://standin.example/qr/qr-1' });
      if (request.method === 'GET' && url.pathname === '/ilink/bot/get_qrcode_status') {
        statusCalls++;
        if (url.searchParams.get('qrcode') !== 'qr-1') return json(response, { status: 'expired' });
        return json(response, statusCalls === 1 ? { status: 'wait' } : statusCalls === 2 ? { status: 'scaned' } : { status: 'confirmed', bot_token: token, ilink_bot_id: 'bot-1', ilink_user_id: 'owner' });
      }
      if (request.headers.authorization !== `Bearer ${token}` || request.headers.authorizationtype !== 'ilink_bot_token') return json(response, { ret: -14, errmsg: 'session timeout' });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, any>;
      switch (url.pathname) {
        case '/ilink/bot/getupdates': {
          state.polls++;
          state.cursors.push(String(body.get_updates_buf ?? ''));
          // The cursor says how many were handed out before; a replayed cursor gets them again.
          const from = Number(body.get_updates_buf || 0);
          const answer = () => {
            const msgs = queue.slice(from, from + batch);
            delivered = Math.max(delivered, from + msgs.length);
            json(response, { ret: 0, msgs, get_updates_buf: String(from + msgs.length), longpolling_timeout_ms: 1000 });
          };
          if (queue.length > from) return answer();
          const wake = (): void => {
            waiters.delete(wake);
            clearTimeout(timer);
            answer();
          };
          const timer = setTimeout(wake, options.holdMs ?? 500);
          waiters.add(wake);
          return;
        }
        case '/ilink/bot/sendmessage': {
          const msg = body.msg;
          state.sent.push({ to: msg.to_user_id, contextToken: msg.context_token, text: msg.item_list[0].text_item.text });
          return json(response, { ret: 0 });
        }
        case '/ilink/bot/getconfig':
          return json(response, { ret: 0, typing_ticket: `ticket-${body.ilink_user_id}` });
        case '/ilink/bot/sendtyping':
          if (body.typing_ticket !== `ticket-${body.ilink_user_id}`) return json(response, { ret: -1, errmsg: 'bad ticket' });
          state.typing.push({ user: body.ilink_user_id, status: body.status });
          return json(response, { ret: 0 });
        default:
          response.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    pending: () => queue.length - delivered,
    get sent() {
      return state.sent;
    },
    get typing() {
      return state.typing;
    },
    get polls() {
      return state.polls;
    },
    get cursors() {
      return state.cursors;
    },
    inject(user, text) {
      nextId += 1;
      queue.push({ message_id: nextId, from_user_id: user, to_user_id: 'bot-1', create_time_ms: 1_710_000_000_000 + queue.length, message_type: 1, message_state: 2, item_list: [{ type: 1, text_item: { text } }], context_token: `ctx-${user}` });
      for (const wake of [...waiters]) wake();
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
