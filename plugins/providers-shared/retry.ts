/**
 * The retry policy every provider shares, written out so it is visible:
 * a 429, a 5xx, an overload and a dropped connection are retried only while
 * no output has been streamed, with exponential backoff and jitter (or exactly
 * the server's Retry-After), at most `LIMITS.providerRetryAttempts` times,
 * each retry announced by a `retry` event. Other 4xx, errors after output
 * started and aborts are never retried, and a retry never changes the model.
 */
import { LIMITS } from '../../core/index.js';

/** Tunables of the policy (tests shorten the delays; the defaults come from LIMITS). */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Jitter source in [0, 1). */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  attempts: LIMITS.providerRetryAttempts,
  baseDelayMs: LIMITS.providerRetryBaseDelayMs,
  maxDelayMs: LIMITS.providerRetryMaxDelayMs,
  random: Math.random,
});

/** The delay before retry number `attempt` (1-based): the server's, else backoff with jitter in [50%, 100%]. */
export function backoffDelay(attempt: number, policy: RetryPolicy, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling * (0.5 + policy.random() * 0.5));
}

/** Reads `retry-after-ms`, then `retry-after` (seconds or an HTTP date), in ms. */
export function retryAfterMs(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
