/**
 * Turns whatever a vendor SDK throws into one classified failure with a
 * message a person can act on. Both official SDKs (openai, @anthropic-ai/sdk)
 * throw `APIError`s carrying `status`, `headers` and the vendor's error body;
 * connection failures have no status.
 */
import { ErrorCodes, LIMITS, XdogError, describeError, utf8Bytes } from '../../core/index.js';
import { ProviderProtocolError } from './message-builder.js';
import { retryAfterMs } from './retry.js';

export type FailureKind = 'auth' | 'rate_limit' | 'server' | 'overloaded' | 'connection' | 'rejected' | 'protocol' | 'aborted' | 'unknown';

/** One classified provider failure. */
export interface ProviderFailure {
  kind: FailureKind;
  status?: number;
  /** Retryable in kind; the caller still refuses once output has started. */
  retryable: boolean;
  retryAfterMs?: number;
  /** Safe to show: secrets are redacted. */
  message: string;
}

/** What the classifier needs to know about the request. */
export interface FailureContext {
  provider: string;
  /** Where the request went (shown for connection failures). */
  endpoint: string;
  /** What to do about a 401/403, e.g. "set OPENAI_API_KEY or run xdog agent login openai". */
  authHint: string;
  /** Values to cut out of any message (API keys, tokens). */
  secrets: readonly string[];
}

interface SdkError {
  name?: string;
  message?: string;
  status?: number;
  headers?: Headers;
  error?: unknown;
  cause?: unknown;
  code?: string;
}

const CONNECTION_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ENOTFOUND', 'EAI_AGAIN']);
const RETRYABLE_BODY_TYPES = new Set(['overloaded_error', 'rate_limit_error', 'api_error', 'server_error']);

/** The vendor's own error text and type from an SDK error body. */
function vendorDetail(error: SdkError): { text?: string; type?: string } {
  const body = error.error as { message?: unknown; type?: unknown; error?: { message?: unknown; type?: unknown } } | undefined;
  const inner = body && typeof body === 'object' && body.error && typeof body.error === 'object' ? body.error : body;
  return {
    text: typeof inner?.message === 'string' ? inner.message : undefined,
    type: typeof inner?.type === 'string' ? inner.type : undefined,
  };
}

/** True when the chain of causes holds a refused TCP connection. */
function isRefused(error: SdkError): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as SdkError).cause, depth++) {
    if ((current as SdkError).code === 'ECONNREFUSED') return true;
  }
  return false;
}

/** A base URL on this machine (127.0.0.0/8, ::1, localhost): nothing listening there will not start listening within a retry. */
export function isLoopbackEndpoint(endpoint: string): boolean {
  let host: string;
  try {
    host = new URL(endpoint).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function isConnectionError(error: SdkError): boolean {
  if (['APIConnectionError', 'APIConnectionTimeoutError', 'IncompleteStreamError'].includes(error.name ?? '')) return true;
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as SdkError).cause, depth++) {
    const { code, message, name } = current as SdkError;
    if (code && CONNECTION_CODES.has(code)) return true;
    if (name === 'TypeError' && (message === 'terminated' || message === 'fetch failed')) return true;
  }
  return false;
}

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}

/** Bounds a message at the limit, saying how much was cut. */
export function boundMessage(text: string): string {
  const limit = LIMITS.providerErrorMessageBytes;
  if (utf8Bytes(text) <= limit) return text;
  const kept = Buffer.from(text, 'utf8').subarray(0, limit - 64).toString('utf8').replace(/\uFFFD$/, '');
  return `${kept}… [${utf8Bytes(text) - utf8Bytes(kept)} more bytes of this error not kept]`;
}

export function classifyFailure(thrown: unknown, context: FailureContext, signal?: AbortSignal): ProviderFailure {
  const error = (thrown ?? {}) as SdkError;
  const finish = (failure: Omit<ProviderFailure, 'message'> & { message: string }): ProviderFailure => ({
    ...failure,
    message: boundMessage(redact(`${context.provider}: ${failure.message}`, context.secrets)),
  });
  if (signal?.aborted || error.name === 'APIUserAbortError' || error.name === 'AbortError') {
    return finish({ kind: 'aborted', retryable: false, message: 'request aborted' });
  }
  if (thrown instanceof ProviderProtocolError) return finish({ kind: 'protocol', retryable: false, message: thrown.message });
  if (error.name === 'MissingCredentialError') return finish({ kind: 'auth', retryable: false, message: `${error.message}; ${context.authHint}` });
  const { text, type } = vendorDetail(error);
  const said = text ?? error.message ?? String(thrown);
  const status = typeof error.status === 'number' ? error.status : undefined;
  if (status === 401 || status === 403) {
    return finish({ kind: 'auth', status, retryable: false, message: `authentication failed (HTTP ${status}): ${said}; ${context.authHint}` });
  }
  if (status === 429) {
    return finish({ kind: 'rate_limit', status, retryable: true, retryAfterMs: retryAfterMs(error.headers), message: `rate limited (HTTP 429): ${said}` });
  }
  if (status !== undefined && status >= 500) {
    return finish({ kind: 'server', status, retryable: true, retryAfterMs: retryAfterMs(error.headers), message: `server error (HTTP ${status}): ${said}` });
  }
  if (status !== undefined) {
    return finish({ kind: 'rejected', status, retryable: false, message: `request rejected (HTTP ${status}): ${said}` });
  }
  if (isRefused(error) && isLoopbackEndpoint(context.endpoint)) {
    return finish({ kind: 'connection', retryable: false, message: `connection to ${context.endpoint} was refused: is the server running?` });
  }
  if (isConnectionError(error)) {
    return finish({ kind: 'connection', retryable: true, message: `connection to ${context.endpoint} failed: ${error.message ?? 'dropped'}` });
  }
  if (type && RETRYABLE_BODY_TYPES.has(type)) {
    return finish({ kind: 'overloaded', retryable: true, message: `the server reported ${type}: ${said}` });
  }
  if (type) return finish({ kind: 'rejected', retryable: false, message: `the server reported ${type}: ${said}` });
  return finish({ kind: 'unknown', retryable: false, message: said });
}

/** No credential is available for a provider: an auth failure, never retried. */
export class MissingCredentialError extends Error {
  override readonly name = 'MissingCredentialError';
}

/**
 * A provider's `checkCredentials`: runs its `connect` (which resolves the key
 * or token) and turns a failure into an AUTH_FAILED error with the provider's hint.
 */
export function credentialCheck(provider: string, authHint: string, connect: (signal: AbortSignal) => Promise<unknown>): () => Promise<void> {
  return async () => {
    try {
      await connect(new AbortController().signal);
    } catch (error) {
      throw new XdogError(ErrorCodes.AUTH_FAILED, `${provider}: ${describeError(error)}`, { hint: authHint, cause: error });
    }
  };
}
