import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { AssistantStreamEvent, ModelContext, XdogConfig } from '../../../core/index.js';
import { OpenAIProvider } from '../../../plugins/providers-openai/index.js';
import { collect, context, fastPolicy, last, noStore, startVendorServer, type ScriptedReply, type VendorServer } from '../providers-shared/vendor-server.js';

const KEY = 'sk-test-secret-key-123';

let server: VendorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  delete process.env.XDOG_TEST_OPENAI_KEY;
});

function chunk(delta: Record<string, unknown>, finish: string | null = null): unknown {
  return { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', choices: [{ index: 0, delta, finish_reason: finish }] };
}
const usageChunk = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', choices: [], usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150, prompt_tokens_details: { cached_tokens: 100 } } };

async function providerFor(replies: ScriptedReply[]): Promise<OpenAIProvider> {
  server = await startVendorServer(replies);
  process.env.XDOG_TEST_OPENAI_KEY = KEY;
  const config: XdogConfig = { providers: { openai: { api_key_env: 'XDOG_TEST_OPENAI_KEY', base_url: `${server.url}/v1` } } };
  return new OpenAIProvider('openai', config, noStore, { policy: fastPolicy });
}



describe('openai provider against a local Chat Completions server', () => {
  it('maps streamed text, tool-call deltas split across chunks, usage and the stop reason', async () => {
    const provider = await providerFor([
      {
        sse: [
          chunk({ role: 'assistant', content: 'Let me ' }),
          chunk({ content: 'look.' }),
          chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"comm' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: 'and":"ls -' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: 'la"}' } }] }),
          chunk({}, 'tool_calls'),
          usageChunk,
          '[DONE]'.replace(/^/, 'data: ') + '\n\n',
        ],
      },
    ]);
    const events = await collect(provider.stream('gpt-4.1', context, {}));
    const end = last(events);
    expect(end.type).toBe('done');
    expect(end.message.content).toEqual([
      { type: 'text', text: 'Let me look.' },
      { type: 'toolCall', id: 'call_1', name: 'bash', arguments: { command: 'ls -la' } },
    ]);
    expect(end.message.stopReason).toBe('toolUse');
    expect(end.message.usage).toEqual({ input: 20, output: 30, cacheRead: 100, cacheWrite: 0 });
    expect(events.filter((event) => event.type === 'text_delta').map((event) => (event as { delta: string }).delta)).toEqual(['Let me ', 'look.']);
    expect(events.filter((event) => event.type === 'toolcall_delta')).toHaveLength(3);

    const request = server!.requests[0]!;
    expect(request.url).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.body).toMatchObject({
      model: 'gpt-4.1',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'list files' },
      ],
      tools: [{ type: 'function', function: { name: 'bash', description: 'run a command' } }],
    });
  });

  it('sends tool results, tool calls and images back in the vendor shape', async () => {
    const provider = await providerFor([{ sse: [chunk({ content: 'ok' }, 'stop'), 'data: [DONE]\n\n'] }]);
    const withHistory: ModelContext = {
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }], timestamp: 1 },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm' }, { type: 'toolCall', id: 'c9', name: 'read', arguments: { path: 'a.png' } }], model: 'openai/gpt-4.1', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, stopReason: 'toolUse', timestamp: 2 },
        { role: 'toolResult', toolCallId: 'c9', toolName: 'read', content: [{ type: 'image', data: 'BBBB', mimeType: 'image/jpeg' }], isError: false, timestamp: 3 },
      ],
      tools: [],
    };
    const end = last(await collect(provider.stream('gpt-4.1', withHistory, {})));
    expect(end.type).toBe('done');
    const body = server!.requests[0]!.body;
    expect(body.tools).toBeUndefined();
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'see' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c9', type: 'function', function: { name: 'read', arguments: '{"path":"a.png"}' } }] },
      { role: 'tool', tool_call_id: 'c9', content: '(1 image follow)' },
      { role: 'user', content: [{ type: 'text', text: 'Image returned by tool read:' }, { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,BBBB' } }] },
    ]);
  });

  it('does not retry a 401, and names the fix without leaking the key', async () => {
    const provider = await providerFor([{ status: 401, json: { error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error' } } }]);
    const events = await collect(provider.stream('gpt-4.1', context, {}));
    const end = last(events);
    expect(end.type).toBe('error');
    expect(end.message.stopReason).toBe('error');
    expect(end.message.errorMessage).toMatch(/authentication failed \(HTTP 401\)/);
    expect(end.message.errorMessage).toMatch(/XDOG_TEST_OPENAI_KEY|xdog agent login openai/);
    expect(JSON.stringify(events)).not.toContain(KEY);
    expect(events.some((event) => event.type === 'retry')).toBe(false);
    expect(server!.requests).toHaveLength(1);
  });

  it('never retries another 4xx', async () => {
    const provider = await providerFor([{ status: 400, json: { error: { message: 'bad tools', type: 'invalid_request_error' } } }]);
    const end = last(await collect(provider.stream('gpt-4.1', context, {})));
    expect(end.message.errorMessage).toMatch(/request rejected \(HTTP 400\): bad tools/);
    expect(server!.requests).toHaveLength(1);
  });

  it('retries a 429 after the advertised Retry-After, announcing the retry', async () => {
    const provider = await providerFor([
      { status: 429, headers: { 'retry-after': '1' }, json: { error: { message: 'slow down', type: 'rate_limit_error' } } },
      { sse: [chunk({ content: 'fine' }, 'stop'), 'data: [DONE]\n\n'] },
    ]);
    const events = await collect(provider.stream('gpt-4.1', context, {}));
    const retries = events.filter((event) => event.type === 'retry');
    expect(retries).toEqual([{ type: 'retry', attempt: 1, delayMs: 1000, reason: expect.stringMatching(/rate limited \(HTTP 429\)/) }]);
    expect(last(events)).toMatchObject({ type: 'done', message: { content: [{ type: 'text', text: 'fine' }] } });
    expect(server!.requests).toHaveLength(2);
    // The retry asks for the same model.
    expect(server!.requests.map((request) => request.body.model)).toEqual(['gpt-4.1', 'gpt-4.1']);
  });

  it('gives up on a 5xx after the bounded budget', async () => {
    const failing = { status: 503, json: { error: { message: 'busy', type: 'server_error' } } };
    const provider = await providerFor([failing, failing, failing, failing, failing]);
    const events = await collect(provider.stream('gpt-4.1', context, {}));
    expect(events.filter((event) => event.type === 'retry')).toHaveLength(3);
    expect(last(events).message.errorMessage).toMatch(/server error \(HTTP 503\).*gave up after 3 retries/);
    expect(server!.requests).toHaveLength(4);
  });

  it('retries a connection dropped before any output, but not one dropped after output started', async () => {
    const provider = await providerFor([
      { sse: [chunk({ role: 'assistant' }), chunk({ content: 'never' })], dropAfter: 0 },
      { sse: [chunk({ content: 'partial ' }), chunk({ content: 'more' }, 'stop')], dropAfter: 1 },
    ]);
    const events = await collect(provider.stream('gpt-4.1', context, {}));
    expect(events.filter((event) => event.type === 'retry')).toHaveLength(1);
    const end = last(events);
    expect(end.type).toBe('error');
    expect(end.message.content).toEqual([{ type: 'text', text: 'partial ' }]);
    expect(end.message.errorMessage).toMatch(/not retried: output had already been streamed/);
    expect(server!.requests).toHaveLength(2);
  });

  it('maps an error event in the stream to an error message', async () => {
    const provider = await providerFor([{ sse: [chunk({ content: 'Hel' }), { error: { message: 'model crashed', type: 'invalid_request_error' } }] }]);
    const end = last(await collect(provider.stream('gpt-4.1', context, {})));
    expect(end.type).toBe('error');
    expect(end.message.errorMessage).toMatch(/model crashed/);
    expect(end.message.content).toEqual([{ type: 'text', text: 'Hel' }]);
    expect(server!.requests).toHaveLength(1);
  });

  it('stops the request on abort', async () => {
    const provider = await providerFor([{ sse: [chunk({ content: 'thinking about it' })], hang: true }]);
    const controller = new AbortController();
    const events: AssistantStreamEvent[] = [];
    for await (const event of provider.stream('gpt-4.1', context, { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'text_delta') controller.abort();
    }
    await server!.closedEarly;
    const end = last(events);
    expect(end.type).toBe('error');
    expect(end.message.stopReason).toBe('aborted');
  });

  it('fails clearly without an API key, before any request', async () => {
    server = await startVendorServer([]);
    const provider = new OpenAIProvider('openai', { providers: { openai: { api_key_env: 'XDOG_TEST_UNSET_KEY', base_url: server.url } } }, noStore);
    const end = last(await collect(provider.stream('gpt-4.1', context, {})));
    expect(end.message.errorMessage).toMatch(/no API key for openai; set XDOG_TEST_UNSET_KEY or run: xdog agent login openai/);
    expect(server.requests).toHaveLength(0);
  });

  it('serves a configured keyless OpenAI-compatible server without an Authorization header', async () => {
    server = await startVendorServer([{ sse: [chunk({ reasoning_content: 'hm' }), chunk({ content: 'hi' }, 'stop'), 'data: [DONE]\n\n'] }]);
    // OPENAI_API_KEY is for api.openai.com: it must not reach another server.
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-real-openai-key-must-not-leak';
    onTestFinished(() => {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    });
    const base = new OpenAIProvider('openai', { providers: { local: { type: 'openai', base_url: `${server.url}/v1` } } }, noStore);
    const local = base.forConfig('local');
    expect(local.name).toBe('local');
    const end = last(await collect(local.stream('qwen3', context, {})));
    expect(end.message.content).toEqual([{ type: 'thinking', thinking: 'hm' }, { type: 'text', text: 'hi' }]);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    expect(server.requests[0]!.body.model).toBe('qwen3');
  });
});
