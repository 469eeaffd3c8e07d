/**
 * Reads a request's JSON body, bounded in size (LIMITS.webBodyBytes) and in
 * time (LIMITS.webBodyMs): a declared or streamed body over the limit is
 * refused at once, without reading the rest, and a sender that stalls is cut.
 */
import type { IncomingMessage } from 'node:http';
import { LIMITS } from '../../core/limits.js';

export class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const limit = LIMITS.webBodyBytes;
  const declared = Number(request.headers['content-length'] ?? '0');
  if (declared > limit) return Promise.reject(new BodyError(413, `the request body is ${declared} bytes, over the limit of ${limit} bytes`));
  const type = request.headers['content-type'] ?? '';
  // Only JSON: a form post from another page (text/plain, urlencoded) is not even parsed.
  if (!/^application\/json(;|$)/i.test(type)) return Promise.reject(new BodyError(415, 'the request body must be application/json'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const fail = (error: BodyError): void => {
      clearTimeout(timer);
      request.removeAllListeners('data');
      request.resume();
      reject(error);
    };
    const timer = setTimeout(() => fail(new BodyError(408, `the request body did not arrive within ${LIMITS.webBodyMs} ms`)), LIMITS.webBodyMs);
    request.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > limit) return fail(new BodyError(413, `the request body is over the limit of ${limit} bytes`));
      chunks.push(chunk);
    });
    request.on('error', () => fail(new BodyError(400, 'the request body was cut off')));
    request.on('end', () => {
      clearTimeout(timer);
      if (length > limit) return;
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'));
      } catch {
        reject(new BodyError(400, 'the request body is not JSON'));
      }
    });
  });
}
