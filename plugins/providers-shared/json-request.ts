/**
 * One bounded JSON request to a vendor's HTTP API (web search, embeddings):
 * the body is read up to `maxBytes` (past that the download is cancelled,
 * never buffered whole), the whole exchange has a deadline, and the caller's
 * secret never appears in an error (fetch quotes a malformed header value).
 */
import { ErrorCodes, XdogError } from '../../core/index.js';

export interface JsonRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Sent as JSON (POST). */
  body?: unknown;
  signal?: AbortSignal;
  maxBytes: number;
  timeoutMs: number;
  /** What answers, for messages: "Brave Search", "the openai embeddings API". */
  what: string;
  /** A key the request carries; cut out of every error message. */
  secret?: string;
  /** A hint per HTTP status (else `defaultHint`). */
  hints?: Record<number, string>;
  defaultHint?: string;
}

/** The parsed JSON body of a 2xx answer; any other answer is an XdogError naming the status and a fix. */
export async function requestJson(url: URL, request: JsonRequest): Promise<unknown> {
  const deadline = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
  try {
    const response = await fetch(url, {
      method: request.method ?? (request.body === undefined ? 'GET' : 'POST'),
      headers: { accept: 'application/json', ...(request.body === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      signal,
    });
    if (!response.ok) {
      const detail = await boundedText(response, 2048, request.what).catch(() => '');
      throw new XdogError(ErrorCodes.TOOL_FAILED, `${request.what} at ${url.origin} answered HTTP ${response.status}${errorDetail(detail)}`, {
        hint: request.hints?.[response.status] ?? request.defaultHint,
      });
    }
    const text = await boundedText(response, request.maxBytes, request.what);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new XdogError(ErrorCodes.TOOL_FAILED, `${request.what} at ${url.origin} answered with a body that is not JSON`, { hint: request.defaultHint });
    }
  } catch (error) {
    if (deadline.aborted && !request.signal?.aborted) {
      throw new XdogError(ErrorCodes.TOOL_FAILED, `${request.what} at ${url.origin} did not answer within ${request.timeoutMs / 1000} s`, { hint: request.defaultHint });
    }
    throw withoutSecret(error, request.secret);
  }
}

/** A short excerpt of an error body (vendors explain a 4xx there), on one line. */
function errorDetail(body: string): string {
  const line = body.replace(/\s+/g, ' ').trim();
  return line ? `: ${line.length > 300 ? `${line.slice(0, 300)}…` : line}` : '';
}

/** The body as text, read until `limit` bytes; past that the download is cancelled, not buffered whole. */
async function boundedText(response: Response, limit: number, what: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > limit) {
    await response.body?.cancel();
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the response of ${what} is ${declared} bytes, over the ${limit}-byte limit`);
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    // Leaving the loop early cancels the stream, which closes the connection.
    if (size > limit) throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the response of ${what} is over the ${limit}-byte limit`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The error with the secret cut out of its message. */
function withoutSecret(error: unknown, secret: string | undefined): unknown {
  if (!secret || !(error instanceof Error)) return error;
  const parts = [secret, ...secret.split(/[\r\n]+/)].filter((part) => part.length >= 4);
  const message = parts.reduce((text, part) => text.split(part).join('[redacted]'), error.message);
  if (message === error.message) return error;
  return XdogError.is(error) ? new XdogError(error.code, message, { hint: error.hint }) : new XdogError(ErrorCodes.TOOL_FAILED, message);
}
