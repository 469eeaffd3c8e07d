import { describe, expect, it } from 'vitest';
import { configSecrets, parseTraceCarrier } from '../../core/index.js';
import { instrumented } from '../../core/agent/instrumentation.js';

describe('parseTraceCarrier (untrusted trace context)', () => {
  const valid = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  it('takes a W3C traceparent and a printable tracestate', () => {
    expect(parseTraceCarrier({ traceparent: valid.toUpperCase(), tracestate: 'vendor=1' })).toEqual({ traceparent: valid, tracestate: 'vendor=1' });
  });
  it('drops a malformed, all-zero or non-string value instead of failing', () => {
    for (const traceparent of ['', 'garbage', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, `00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`, 42, `${valid}-extra`]) {
      expect(parseTraceCarrier({ traceparent })).toBeUndefined();
    }
    expect(parseTraceCarrier(undefined)).toBeUndefined();
    expect(parseTraceCarrier({ traceparent: valid, tracestate: 'bad\nstate' })).toEqual({ traceparent: valid });
  });
});

describe('instrumented (an around-hook that cannot break its step)', () => {
  it('runs the step once through the wrapper and returns its value', async () => {
    let runs = 0;
    const value = await instrumented(async (_info: unknown, run: () => Promise<number>) => (await run()) + 100, {}, async () => ++runs);
    expect([value, runs]).toEqual([1, 1]);
  });
  it('runs the step when the wrapper forgets it, keeps its value when the wrapper throws after it, rethrows the step\'s own error', async () => {
    let runs = 0;
    expect(await instrumented(async () => 7, {}, async () => ++runs)).toBe(1);
    expect(await instrumented(async (_info: unknown, run: () => Promise<number>) => { await run(); throw new Error('tracer down'); }, {}, async () => ++runs)).toBe(2);
    await expect(instrumented(async (_info: unknown, run: () => Promise<number>) => run(), {}, async () => { throw new Error('step failed'); })).rejects.toThrow('step failed');
    expect(runs).toBe(2);
  });
});

describe('configSecrets', () => {
  it('finds the values of the variables a config names, header values and secret-named values', () => {
    const env = { OPENAI_KEY: 'value-of-openai-key', HDR: 'value-of-collector-header' };
    const secrets = configSecrets({ providers: { openai: { api_key_env: 'OPENAI_KEY', headers: { 'X-Org': 'org-header-value-1' } } }, telemetry: { headers_env: { 'x-api-key': 'HDR' } }, extension_settings: { bot: { api_token: 'planted-token-value' } } }, env);
    expect(secrets.sort()).toEqual(['org-header-value-1', 'planted-token-value', 'value-of-collector-header', 'value-of-openai-key']);
  });
});
