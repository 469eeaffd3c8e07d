import { afterEach, describe, expect, it } from 'vitest';
import { ModelRegistryImpl, type AssistantStreamEvent, type ModelContext } from '../../../core/index.js';
import { AnthropicProvider } from '../../../plugins/providers-anthropic/index.js';
import { toAnthropicMessages } from '../../../plugins/providers-anthropic/convert.js';
import { collect, context, fastPolicy, last, noStore, namedEvent, startVendorServer, type ScriptedReply, type VendorServer } from '../providers-shared/vendor-server.js';

const KEY = 'sk-ant-test-secret-456';

let server: VendorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  delete process.env.XDOG_TEST_ANTHROPIC_KEY;
});

async function providerFor(replies: ScriptedReply[], key: string | undefined = KEY): Promise<AnthropicProvider> {
  server = await startVendorServer(replies);
  if (key) process.env.XDOG_TEST_ANTHROPIC_KEY = key;
  return new AnthropicProvider({ providers: { anthropic: { api_key_env: 'XDOG_TEST_ANTHROPIC_KEY', base_url: server.url } } }, noStore, { policy: fastPolicy });
}

const messageStart = namedEvent('message_start', {
  type: 'message_start',
  message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 50, output_tokens: 1, cache_read_input_tokens: 40, cache_creation_input_tokens: 5 } },
});
const stop = (reason: string, output = 25) => [
  namedEvent('message_delta', { type: 'message_delta', delta: { stop_reason: reason, stop_sequence: null }, usage: { output_tokens: output } }),
  namedEvent('message_stop', { type: 'message_stop' }),
];

describe('anthropic provider against a local Messages API server', () => {
  it('maps thinking with its signature, text, split tool-use input, usage and the stop reason', async () => {
    const provider = await providerFor([
      {
        sse: [
          messageStart,
          namedEvent('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
          namedEvent('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'The user wants ' } }),
          namedEvent('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'files.' } }),
          namedEvent('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-abc' } }),
          namedEvent('content_block_stop', { type: 'content_block_stop', index: 0 }),
          namedEvent('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }),
          namedEvent('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Listing.' } }),
          namedEvent('content_block_stop', { type: 'content_block_stop', index: 1 }),
          namedEvent('content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_1', name: 'bash', input: {} } }),
          namedEvent('content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"command": "l' } }),
          namedEvent('content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: 's"}' } }),
          namedEvent('content_block_stop', { type: 'content_block_stop', index: 2 }),
          ...stop('tool_use'),
        ],
      },
    ]);
    const events = await collect(provider.stream('claude-sonnet-4-6', context, { reasoning: 'low' }));
    const end = last(events);
    expect(end.type).toBe('done');
    expect(end.message.content).toEqual([
      { type: 'thinking', thinking: 'The user wants files.', signature: 'sig-abc' },
      { type: 'text', text: 'Listing.' },
      { type: 'toolCall', id: 'toolu_1', name: 'bash', arguments: { command: 'ls' } },
    ]);
    expect(end.message.stopReason).toBe('toolUse');
    expect(end.message.usage).toEqual({ input: 50, output: 25, cacheRead: 40, cacheWrite: 5 });
    expect(events.filter((event) => event.type === 'thinking_delta')).toHaveLength(2);

    const request = server!.requests[0]!;
    expect(request.url).toBe('/v1/messages');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.body).toMatchObject({
      model: 'claude-sonnet-4-6',
      system: 'be brief',
      stream: true,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages: [{ role: 'user', content: 'list files' }],
      tools: [{ name: 'bash', description: 'run a command', input_schema: { type: 'object' } }],
    });
    expect(request.body.max_tokens).toBeGreaterThan(2048);
  });

  it('sends thinking signatures, tool use and batched tool results back', async () => {
    const provider = await providerFor([{ sse: [messageStart, ...stop('end_turn')] }]);
    const history: ModelContext = {
      messages: [
        { role: 'user', content: 'go', timestamp: 1 },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 't', signature: 's1' },
            { type: 'toolCall', id: 'a', name: 'ls', arguments: {} },
            { type: 'toolCall', id: 'b', name: 'read', arguments: { path: 'x' } },
          ],
          model: 'anthropic/claude-sonnet-4-6',
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
          stopReason: 'toolUse',
          timestamp: 2,
        },
        { role: 'toolResult', toolCallId: 'a', toolName: 'ls', content: [{ type: 'text', text: 'x' }], isError: false, timestamp: 3 },
        { role: 'toolResult', toolCallId: 'b', toolName: 'read', content: [{ type: 'image', data: 'QQ==', mimeType: 'image/png' }], isError: true, timestamp: 4 },
      ],
      tools: [],
    };
    const end = last(await collect(provider.stream('claude-sonnet-4-6', history, {})));
    expect(end.type).toBe('done');
    expect(end.message.stopReason).toBe('stop');
    expect(server!.requests[0]!.body.messages).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 't', signature: 's1' },
          { type: 'tool_use', id: 'a', name: 'ls', input: {} },
          { type: 'tool_use', id: 'b', name: 'read', input: { path: 'x' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'x' }], is_error: false },
          { type: 'tool_result', tool_use_id: 'b', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'QQ==' } }], is_error: true },
        ],
      },
    ]);
  });

  it('does not retry a 401 and keeps the key out of every event', async () => {
    const provider = await providerFor([{ status: 401, json: { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${KEY}` } } }]);
    const events = await collect(provider.stream('claude-sonnet-4-6', context, {}));
    const end = last(events);
    expect(end.message.errorMessage).toMatch(/authentication failed \(HTTP 401\).*xdog agent login anthropic/);
    expect(JSON.stringify(events)).not.toContain(KEY);
    expect(server!.requests).toHaveLength(1);
  });

  it('retries a 429 after Retry-After and then streams the answer', async () => {
    const provider = await providerFor([
      { status: 429, headers: { 'retry-after': '1' }, json: { type: 'error', error: { type: 'rate_limit_error', message: 'too many' } } },
      {
        sse: [
          messageStart,
          namedEvent('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
          namedEvent('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hello' } }),
          ...stop('end_turn'),
        ],
      },
    ]);
    const events = await collect(provider.stream('claude-sonnet-4-6', context, {}));
    expect(events.filter((event) => event.type === 'retry')).toEqual([expect.objectContaining({ attempt: 1, delayMs: 1000 })]);
    expect(last(events)).toMatchObject({ type: 'done', message: { content: [{ type: 'text', text: 'hello' }] } });
    expect(server!.requests).toHaveLength(2);
  });

  it('maps an error event: retried before output, an error after output', async () => {
    const overloaded = namedEvent('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    const textStart = namedEvent('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    const hello = namedEvent('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } });
    const provider = await providerFor([{ sse: [messageStart, overloaded] }, { sse: [messageStart, textStart, hello, overloaded] }]);
    const events = await collect(provider.stream('claude-sonnet-4-6', context, {}));
    expect(events.filter((event) => event.type === 'retry')).toHaveLength(1);
    const end = last(events);
    expect(end.type).toBe('error');
    expect(end.message.content).toEqual([{ type: 'text', text: 'Hel' }]);
    expect(end.message.errorMessage).toMatch(/overloaded_error: Overloaded \(not retried: output had already been streamed\)/);
  });

  it('retries a dropped connection before output', async () => {
    const provider = await providerFor([
      { sse: [messageStart], dropAfter: 0 },
      { sse: [messageStart, ...stop('max_tokens')] },
    ]);
    const events = await collect(provider.stream('claude-sonnet-4-6', context, {}));
    expect(events.filter((event) => event.type === 'retry')).toHaveLength(1);
    expect(last(events)).toMatchObject({ type: 'done', message: { stopReason: 'length' } });
  });

  it('stops the request on abort', async () => {
    const textStart = namedEvent('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    const hello = namedEvent('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } });
    const provider = await providerFor([{ sse: [messageStart, textStart, hello], hang: true }]);
    const controller = new AbortController();
    const events: AssistantStreamEvent[] = [];
    for await (const event of provider.stream('claude-sonnet-4-6', context, { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'text_delta') controller.abort();
    }
    await server!.closedEarly;
    expect(last(events).message.stopReason).toBe('aborted');
  });
});

describe('redacted thinking', () => {
  it('keeps a redacted_thinking block whole and sends it back as it came', async () => {
    const provider = await providerFor([
      {
        sse: [
          messageStart,
          namedEvent('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'redacted_thinking', data: 'EncRypTed==' } }),
          namedEvent('content_block_stop', { type: 'content_block_stop', index: 0 }),
          namedEvent('content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'thinking', thinking: '', signature: '' } }),
          namedEvent('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'thinking_delta', thinking: 'Plain.' } }),
          namedEvent('content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'signature_delta', signature: 'sig-2' } }),
          namedEvent('content_block_stop', { type: 'content_block_stop', index: 1 }),
          namedEvent('content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'text', text: 'Done.' } }),
          namedEvent('content_block_stop', { type: 'content_block_stop', index: 2 }),
          ...stop('end_turn'),
        ],
      },
    ]);
    const end = last(await collect(provider.stream('claude-sonnet-4-6', context, { reasoning: 'low' })));
    expect(end.message.content).toEqual([
      { type: 'thinking', thinking: '', signature: 'EncRypTed==', redacted: true },
      { type: 'thinking', thinking: 'Plain.', signature: 'sig-2' },
      { type: 'text', text: 'Done.' },
    ]);
    expect(toAnthropicMessages([end.message])[0]!.content).toEqual([
      { type: 'redacted_thinking', data: 'EncRypTed==' },
      { type: 'thinking', thinking: 'Plain.', signature: 'sig-2' },
      { type: 'text', text: 'Done.' },
    ]);
  });
});

describe('configured Anthropic-compatible providers (type: anthropic)', () => {
  it('serve any Messages endpoint under their own name, with their own key, and take any model id', async () => {
    server = await startVendorServer([{ sse: [messageStart, ...stop('end_turn')] }]);
    process.env.XDOG_TEST_PROXY_KEY = 'proxy-key-789';
    const config = { providers: { proxy: { type: 'anthropic', base_url: server.url, api_key_env: 'XDOG_TEST_PROXY_KEY' } } } as const;
    const registry = new ModelRegistryImpl([new AnthropicProvider(config, noStore, { policy: fastPolicy })], config);
    expect(registry.providers()).toEqual(['anthropic', 'proxy']);
    const resolved = registry.resolve('proxy/my-claude');
    expect(resolved.provider.name).toBe('proxy');
    const end = last(await collect(registry.streamFn('proxy/my-claude', context, {})));
    expect(end.type).toBe('done');
    const request = server.requests[0]!;
    expect(request.body.model).toBe('my-claude');
    expect(`${request.headers['x-api-key'] ?? ''} ${request.headers.authorization ?? ''}`).toContain('proxy-key-789');
    delete process.env.XDOG_TEST_PROXY_KEY;
  });

  it('send no credential to a keyless endpoint, not even ANTHROPIC_API_KEY from the environment', async () => {
    server = await startVendorServer([{ sse: [messageStart, ...stop('end_turn')] }]);
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = 'sk-ant-real-key-must-not-leak';
    try {
      const local = new AnthropicProvider({ providers: { local: { type: 'anthropic', base_url: server.url } } }, noStore, { policy: fastPolicy }).forConfig('local');
      expect(local.name).toBe('local');
      expect(local.stream.models).toBeUndefined();
      expect(last(await collect(local.stream('any-model', context, {}))).type).toBe('done');
      expect(server.requests[0]!.headers['x-api-key']).toBeUndefined();
      expect(server.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });
});

describe('toAnthropicMessages', () => {
  it('leaves out empty text blocks, which the Messages API refuses', () => {
    const messages = toAnthropicMessages([
      { role: 'user', content: [{ type: 'text', text: '' }, { type: 'image', data: 'QQ==', mimeType: 'image/png' }], timestamp: 1 },
      {
        role: 'assistant',
        content: [{ type: 'toolCall', id: 'a', name: 'probe', arguments: {} }],
        model: 'anthropic/claude-sonnet-4-6',
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        stopReason: 'toolUse',
        timestamp: 2,
      },
      { role: 'toolResult', toolCallId: 'a', toolName: 'probe', content: [{ type: 'text', text: '' }], isError: false, timestamp: 3 },
    ]);
    expect(messages[0]).toEqual({ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'QQ==' } }] });
    expect(messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', is_error: false }] });
  });
});
