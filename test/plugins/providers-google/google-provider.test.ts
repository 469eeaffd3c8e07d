/**
 * The Gemini provider against a local stand-in of the `streamGenerateContent`
 * SSE API: what the official SDK sends, and how the stream maps back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../core/index.js';
import { GoogleProvider, toGeminiContents } from '../../../plugins/providers-google/index.js';
import { collect, context, fastPolicy, last, noStore, startVendorServer, type ScriptedReply, type VendorServer } from '../providers-shared/vendor-server.js';

const KEY = 'gemini-test-secret-321';

let server: VendorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  delete process.env.XDOG_TEST_GEMINI_KEY;
});

async function providerFor(replies: ScriptedReply[]): Promise<GoogleProvider> {
  server = await startVendorServer(replies);
  process.env.XDOG_TEST_GEMINI_KEY = KEY;
  return new GoogleProvider({ providers: { google: { api_key_env: 'XDOG_TEST_GEMINI_KEY', base_url: server.url } } }, noStore, { policy: fastPolicy });
}

const usage = { promptTokenCount: 60, candidatesTokenCount: 20, thoughtsTokenCount: 5, cachedContentTokenCount: 10 };

describe('google provider against a local Gemini streaming API', () => {
  it('maps thoughts with signatures, text, function calls, usage and the finish reason, and sends what the API expects', async () => {
    const provider = await providerFor([
      {
        sse: [
          { candidates: [{ content: { role: 'model', parts: [{ text: 'The user wants ', thought: true }] } }] },
          { candidates: [{ content: { role: 'model', parts: [{ text: 'files.', thought: true, thoughtSignature: 'sig-1' }] } }] },
          { candidates: [{ content: { role: 'model', parts: [{ text: 'Listing.' }] } }] },
          { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'bash', args: { command: 'ls' } }, thoughtSignature: 'sig-call' }] }, finishReason: 'STOP' }], usageMetadata: usage },
        ],
      },
    ]);
    const events = await collect(provider.stream('gemini-2.5-flash', context, { reasoning: 'low' }));
    const end = last(events);
    expect(end.type).toBe('done');
    expect(end.message.content).toEqual([
      { type: 'thinking', thinking: 'The user wants files.', signature: 'sig-1' },
      { type: 'text', text: 'Listing.' },
      { type: 'thinking', thinking: '', signature: 'sig-call' },
      { type: 'toolCall', id: 'call_1', name: 'bash', arguments: { command: 'ls' } },
    ]);
    expect(end.message.stopReason).toBe('toolUse');
    expect(end.message.usage).toEqual({ input: 50, output: 25, cacheRead: 10, cacheWrite: 0 });

    const request = server!.requests[0]!;
    expect(request.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(request.headers['x-goog-api-key']).toBe(KEY);
    expect(request.body).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'list files' }] }],
      systemInstruction: { parts: [{ text: 'be brief' }] },
      tools: [{ functionDeclarations: [{ name: 'bash', description: 'run a command', parametersJsonSchema: { type: 'object' } }] }],
      generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } },
    });
  });

  it('sends thoughts and call signatures back, tool results in one turn, and images in', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }], timestamp: 1 },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Look closer.', signature: 'sig-1' },
          { type: 'thinking', thinking: '', signature: 'sig-call' },
          { type: 'toolCall', id: 'call_1', name: 'zoom', arguments: { factor: 2 } },
          { type: 'toolCall', id: 'call_2', name: 'crop', arguments: {} },
        ],
        model: 'google/gemini-2.5-flash',
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        stopReason: 'toolUse',
        timestamp: 2,
      },
      { role: 'toolResult', toolCallId: 'call_1', toolName: 'zoom', content: [{ type: 'image', data: 'QQ==', mimeType: 'image/jpeg' }], isError: false, timestamp: 3 },
      { role: 'toolResult', toolCallId: 'call_2', toolName: 'crop', content: [{ type: 'text', text: 'no region' }], isError: true, timestamp: 4 },
    ];
    expect(toGeminiContents(messages)).toEqual([
      { role: 'user', parts: [{ text: 'what is this?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] },
      {
        role: 'model',
        parts: [
          { text: 'Look closer.', thought: true, thoughtSignature: 'sig-1' },
          { functionCall: { id: 'call_1', name: 'zoom', args: { factor: 2 } }, thoughtSignature: 'sig-call' },
          { functionCall: { id: 'call_2', name: 'crop', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'call_1', name: 'zoom', response: { output: '(1 image follow)' } } },
          { inlineData: { mimeType: 'image/jpeg', data: 'QQ==' } },
          { functionResponse: { id: 'call_2', name: 'crop', response: { error: 'no region' } } },
        ],
      },
    ]);
  });

  it('reports a stop for safety as an error, and a 401 without retrying, naming the key variable', async () => {
    const provider = await providerFor([
      { sse: [{ candidates: [{ content: { role: 'model', parts: [{ text: 'Sure' }] }, finishReason: 'SAFETY' }] }] },
      { status: 401, json: { error: { code: 401, message: 'API key not valid', status: 'UNAUTHENTICATED' } } },
    ]);
    const safety = last(await collect(provider.stream('gemini-2.5-flash', context, {})));
    expect(safety.type).toBe('error');
    expect(safety.message.errorMessage).toBe('google: the model stopped with SAFETY');
    const denied = last(await collect(provider.stream('gemini-2.5-flash', context, {})));
    expect(denied.message.errorMessage).toMatch(/^google: authentication failed \(HTTP 401\): .*API key not valid.*; set XDOG_TEST_GEMINI_KEY or run: xdog agent login google$/);
    expect(server!.requests).toHaveLength(2);
  });

  it('retries a 503 under the shared policy, then streams', async () => {
    const provider = await providerFor([
      { status: 503, json: { error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } } },
      { sse: [{ candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }] }, finishReason: 'STOP' }] }] },
    ]);
    const events = await collect(provider.stream('gemini-2.5-flash', context, {}));
    expect(events.filter((event) => event.type === 'retry')).toHaveLength(1);
    expect(last(events).message.content).toEqual([{ type: 'text', text: 'hi' }]);
  });
});
