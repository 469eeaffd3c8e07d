/**
 * Helpers for webhook-channel tests: a receiver for the channel's outbound
 * POSTs (checking their signature) and a signed inbound delivery.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, signBody } from '../../plugins/channels/index.js';

export const WEBHOOK_SECRET = 'test-webhook-secret-0123456789';

export interface Outbound {
  type: 'message' | 'typing' | 'approval';
  channel: string;
  to: string;
  text?: string;
  on?: boolean;
  in_reply_to?: string;
  approval?: Record<string, unknown>;
}

export interface Receiver {
  url: string;
  received: Outbound[];
  messages(): Outbound[];
  close(): Promise<void>;
}

/** Records every signed POST; an unsigned or wrongly signed one fails the test through `badSignatures`. */
export async function startReceiver(): Promise<Receiver & { badSignatures: number }> {
  const received: Outbound[] = [];
  const state = { badSignatures: 0 };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      if (request.headers[SIGNATURE_HEADER] !== signBody(WEBHOOK_SECRET, body)) state.badSignatures++;
      else received.push(JSON.parse(body.toString('utf8')) as Outbound);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/out`,
    received,
    get badSignatures() {
      return state.badSignatures;
    },
    messages: () => received.filter((item) => item.type === 'message'),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** POSTs one signed message to the channel; resolves the HTTP status and the JSON body. */
export async function deliver(url: string, message: { id: string; sender: string; text: string; reply_to?: string }, secret = WEBHOOK_SECRET): Promise<{ status: number; body: { status?: string; error?: string } }> {
  const body = JSON.stringify(message);
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signBody(secret, body) }, body });
  return { status: response.status, body: (await response.json()) as { status?: string; error?: string } };
}

/** The config block of one webhook channel bound to group main. */
export function webhookChannelConfig(receiverUrl: string, allow: string[], id = 'hook'): string {
  return [
    '  channels:',
    `    ${id}:`,
    '      type: webhook',
    '      group: main',
    `      allow_from: [${allow.join(', ')}]`,
    '      settings:',
    '        port: 0',
    '        secret_env: XDOG_TEST_WEBHOOK_SECRET',
    `        outbound_url: "${receiverUrl}"`,
    '',
  ].join('\n');
}
