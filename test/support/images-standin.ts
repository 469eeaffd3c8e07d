/**
 * A local stand-in of the OpenAI Images API on 127.0.0.1: POST
 * /v1/images/generations (JSON) and /v1/images/edits (multipart), answering
 * with b64_json images. It records every request so tests can check what
 * was sent, and how many times.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The smallest valid PNG (1x1, transparent). */
export const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

export interface ImagesRequest {
  url: string;
  authorization?: string;
  /** The JSON body, or the multipart form's text fields. */
  fields: Record<string, unknown>;
  /** Uploaded files of an edit: field name, type and size. */
  files: Array<{ field: string; type: string; bytes: number }>;
}

/** One scripted answer: images as base64, an error status, or never answering. */
export type ImagesReply = { images: Buffer[] } | { status: number; message: string } | { hang: true };

export interface ImagesStandIn {
  url: string;
  requests: ImagesRequest[];
  close(): Promise<void>;
}

/** Answers requests in order with `replies`; after the last one, repeats it. */
export async function startImagesStandIn(replies: ImagesReply[]): Promise<ImagesStandIn> {
  const requests: ImagesRequest[] = [];
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const recorded = await decode(request, Buffer.concat(chunks));
        requests.push(recorded);
        const reply = replies[Math.min(requests.length - 1, replies.length - 1)]!;
        if ('hang' in reply) return void hanging.push(response);
        if ('status' in reply) {
          response.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: reply.message, type: 'invalid_request_error' } }));
          return;
        }
        const body = { created: 1, data: reply.images.map((image) => ({ b64_json: image.toString('base64') })) };
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function decode(request: http.IncomingMessage, body: Buffer): Promise<ImagesRequest> {
  const base = { url: request.url ?? '', authorization: request.headers.authorization };
  const type = request.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) return { ...base, fields: JSON.parse(body.toString('utf8')) as Record<string, unknown>, files: [] };
  const form = await new Response(body, { headers: { 'content-type': type } }).formData();
  const fields: Record<string, unknown> = {};
  const files: ImagesRequest['files'] = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string') fields[field] = value;
    else files.push({ field, type: value.type, bytes: value.size });
  }
  return { ...base, fields, files };
}
