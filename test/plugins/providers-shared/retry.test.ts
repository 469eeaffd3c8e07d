import { describe, expect, it } from 'vitest';
import { backoffDelay, boundMessage, classifyFailure, redact, retryAfterMs, runProviderStream, type ProviderAttempt } from '../../../plugins/providers-shared/index.js';
import { LIMITS, type AssistantStreamEvent } from '../../../core/index.js';
import { collect } from './vendor-server.js';

const policy = { attempts: 4, baseDelayMs: 1000, maxDelayMs: 60_000, random: () => 0.5 };
/** An attempt that fails at once with a fresh error each time, counting calls. */
function failing(make: () => Error, calls = { count: 0 }): ProviderAttempt {
  return () => {
    calls.count++;
    return { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(make()) }) };
  };
}

const context = { provider: 'p', endpoint: 'http://127.0.0.1:1', authHint: 'set P_KEY', secrets: ['secret-value'] };

describe('the shared retry policy', () => {
  it('backs off exponentially with jitter, capped, unless the server names a delay', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffDelay(attempt, policy))).toEqual([750, 1500, 3000, 6000]);
    expect(backoffDelay(20, policy)).toBe(45_000);
    expect(backoffDelay(1, policy, 2500)).toBe(2500);
  });

  it('reads retry-after-ms, retry-after seconds and an HTTP date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '3' }))).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 4000)).toBe(6000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
  });

  it('classifies statuses and redacts secrets', () => {
    const failure = (status: number) => classifyFailure(Object.assign(new Error('x'), { status, error: { error: { message: 'said secret-value' } } }), context);
    expect(failure(401)).toMatchObject({ kind: 'auth', retryable: false, message: 'p: authentication failed (HTTP 401): said [redacted]; set P_KEY' });
    expect(failure(429)).toMatchObject({ kind: 'rate_limit', retryable: true });
    expect(failure(529)).toMatchObject({ kind: 'server', retryable: true });
    expect(failure(404)).toMatchObject({ kind: 'rejected', retryable: false });
    expect(redact('a secret-value b', ['secret-value'])).toBe('a [redacted] b');
  });

  it('fails at once, asking whether the server runs, when a loopback base URL refuses the connection', async () => {
    const refused = () => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) });
    expect(classifyFailure(refused(), context)).toMatchObject({ kind: 'connection', retryable: false, message: 'p: connection to http://127.0.0.1:1 was refused: is the server running?' });
    expect(classifyFailure(refused(), { ...context, endpoint: 'http://localhost:11434/v1' })).toMatchObject({ retryable: false });
    expect(classifyFailure(refused(), { ...context, endpoint: 'http://[::1]:8080' })).toMatchObject({ retryable: false });
    // A remote endpoint may be restarting behind a load balancer: that stays a retryable connection failure.
    expect(classifyFailure(refused(), { ...context, endpoint: 'https://api.example.test' })).toMatchObject({ kind: 'connection', retryable: true });
    const calls = { count: 0 };
    const events = await collect(runProviderStream({ ...context, model: 'm', policy }, failing(refused, calls)));
    expect(calls.count).toBe(1);
    expect(events.some((event) => event.type === 'retry')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'error', message: { errorMessage: expect.stringContaining('is the server running?') } });
  });

  it('says how much of an over-long error it cut', () => {
    const bounded = boundMessage('x'.repeat(LIMITS.providerErrorMessageBytes * 2));
    expect(Buffer.byteLength(bounded)).toBeLessThanOrEqual(LIMITS.providerErrorMessageBytes);
    expect(bounded).toMatch(/more bytes of this error not kept\]$/);
  });

  it('reports a Retry-After beyond the limit instead of waiting for it', async () => {
    const calls = { count: 0 };
    const tooLong = () => Object.assign(new Error('busy'), { status: 429, headers: new Headers({ 'retry-after': '3600' }) });
    const events = await collect(runProviderStream({ ...context, model: 'm', policy }, failing(tooLong, calls)));
    expect(calls.count).toBe(1);
    expect(events.at(-1)).toMatchObject({ type: 'error', message: { stopReason: 'error', errorMessage: expect.stringMatching(/asked to wait 3600s, over the 60s limit/) } });
  });

  it('stops waiting for a retry when aborted', async () => {
    const controller = new AbortController();
    const events: AssistantStreamEvent[] = [];
    const down = () => Object.assign(new Error('down'), { status: 503 });
    for await (const event of runProviderStream({ ...context, model: 'm', policy: { ...policy, baseDelayMs: 60_000 }, signal: controller.signal }, failing(down))) {
      events.push(event);
      if (event.type === 'retry') controller.abort();
    }
    expect(events.map((event) => event.type)).toEqual(['start', 'retry', 'error']);
    expect(events.at(-1)).toMatchObject({ message: { stopReason: 'aborted' } });
  });
});
