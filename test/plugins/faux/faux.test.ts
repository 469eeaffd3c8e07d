import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent, LIMITS, ModelProviderContribution, createKernel, type AssistantStreamEvent, type ModelProvider } from '../../../core/index.js';
import fauxPlugin, { createFauxStreamFn, fauxOptionsFrom, type FauxStreamFn } from '../../../plugins/faux/index.js';

const dir = mkdtempSync(join(tmpdir(), 'xdog-faux-'));

async function events(stream: AsyncIterable<AssistantStreamEvent>): Promise<AssistantStreamEvent[]> {
  const out: AssistantStreamEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

const context = { messages: [{ role: 'user' as const, content: 'hi', timestamp: 1 }], tools: [] };

describe('faux stream function', () => {
  it('streams thinking, text and tool calls, then done with usage and stopReason', async () => {
    const model = createFauxStreamFn({ responses: [{ thinking: 'let me see', text: 'calling now', toolCalls: [{ name: 'ls', arguments: { path: '.' }, id: 'c1' }], usage: { input: 12, output: 5 } }] });
    const out = await events(model('faux/demo', context, {}));
    expect(out.map((event) => event.type)).toEqual(['start', 'thinking_delta', 'thinking_delta', 'thinking_delta', 'text_delta', 'text_delta', 'toolcall_delta', 'toolcall_end', 'done']);
    const done = out.at(-1) as Extract<AssistantStreamEvent, { type: 'done' }>;
    expect(done.message).toMatchObject({
      content: [{ type: 'thinking', thinking: 'let me see' }, { type: 'text', text: 'calling now' }, { type: 'toolCall', id: 'c1', name: 'ls', arguments: { path: '.' } }],
      usage: { input: 12, output: 5 },
      stopReason: 'toolUse',
      model: 'faux/demo',
    });
  });

  it('makes tool-call ids unique across stream functions (a gateway restart makes a new one), and within one', async () => {
    const idsOf = async (model: ReturnType<typeof createFauxStreamFn>): Promise<string[]> => {
      const ids: string[] = [];
      for (let call = 0; call < 2; call++) {
        const done = (await events(model('faux/demo', context, {}))).at(-1) as Extract<AssistantStreamEvent, { type: 'done' }>;
        for (const part of done.message.content) if (part.type === 'toolCall') ids.push(part.id);
      }
      return ids;
    };
    const script = () => ({ responses: [0, 1].map(() => ({ toolCalls: [{ name: 'ls', arguments: {} }, { name: 'ls', arguments: {} }] })) });
    const before = await idsOf(createFauxStreamFn(script()));
    const after = await idsOf(createFauxStreamFn(script()));
    expect(new Set([...before, ...after]).size).toBe(8);
  });

  it('an error response ends with stopReason error; running out of responses says the script is exhausted', async () => {
    const model = createFauxStreamFn({ responses: [{ text: 'partial', error: 'rate limited' }] });
    const first = (await events(model('faux/x', context, {}))).at(-1)!;
    expect(first).toMatchObject({ type: 'error', message: { stopReason: 'error', errorMessage: 'rate limited', content: [{ type: 'text', text: 'partial' }] } });
    const second = (await events(model('faux/x', context, {}))).at(-1)!;
    expect(second).toMatchObject({ type: 'error', message: { stopReason: 'error', errorMessage: expect.stringContaining('exhausted') } });
  });

  it(`keeps only the newest ${LIMITS.fauxRecordedRequests} requests in \`requests\`, and counts them all`, async () => {
    const total = LIMITS.fauxRecordedRequests + 10;
    const model = createFauxStreamFn({ responses: (request) => ({ text: `seen ${request.messages.length}` }) });
    for (let i = 0; i < total; i++) await events(model('faux/x', { messages: [{ role: 'user', content: `q${i}`, timestamp: 0 }], tools: [] }, {}));
    expect(model.callCount).toBe(total);
    expect(model.requests).toHaveLength(LIMITS.fauxRecordedRequests);
    expect(model.requests.at(0)!.messages[0]).toMatchObject({ content: 'q10' });
    expect(model.requests.at(-1)!.messages[0]).toMatchObject({ content: `q${total - 1}` });
  });

  it('honours abort during a delay', async () => {
    const model = createFauxStreamFn({ responses: [{ text: 'late', delayMs: 60_000 }] });
    const controller = new AbortController();
    const pending = events(model('faux/x', context, { signal: controller.signal }));
    controller.abort();
    expect((await pending).at(-1)).toMatchObject({ type: 'error', message: { stopReason: 'aborted' } });
  });

  it('plays a JSON script file with metadata overrides, and logs every request to XDOG_FAUX_LOG', async () => {
    const script = join(dir, 'script.json');
    const log = join(dir, 'requests.jsonl');
    writeFileSync(script, JSON.stringify({ model: { contextWindow: 4096, images: { maxCount: 1 } }, responses: [{ text: 'one' }, { text: 'two' }] }));
    const model = createFauxStreamFn(fauxOptionsFrom({}, dir, { XDOG_FAUX_SCRIPT: 'script.json', XDOG_FAUX_LOG: log }));
    expect(model.resolveModel!('faux/demo')).toMatchObject({ id: 'demo', provider: 'faux', contextWindow: 4096, images: { maxCount: 1, maxBytes: expect.any(Number) } });
    const agent = new Agent(model, { model: 'faux/demo', systemPrompt: 'be terse' });
    await agent.prompt('first').result();
    await agent.prompt('second').result();
    const lines = readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ model: 'faux/demo', systemPrompt: 'be terse', tools: [] });
    expect(lines[1].messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(model.requests).toHaveLength(2);
  });

  it('runs an ES module script: the default export maps the request to a response', async () => {
    const script = join(dir, 'echo.mjs');
    writeFileSync(
      script,
      `export const model = { maxOutputTokens: 99 };
export default function respond(request) {
  const last = request.messages.at(-1);
  return { text: 'echo: ' + last.content + ' (' + request.tools.length + ' tools)' };
}`,
    );
    const model = createFauxStreamFn({ script });
    const agent = new Agent(model, { model: 'faux/echo' });
    await agent.prompt('ping').result();
    expect(agent.messages.at(-1)).toMatchObject({ content: [{ type: 'text', text: 'echo: ping (0 tools)' }] });
    expect(model.resolveModel!('faux/echo')?.maxOutputTokens).toBe(99);
  });

  it('a broken or missing script becomes an error message, not a throw', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ responses: [{ txt: 'typo' }] }));
    const out = await events(createFauxStreamFn({ script: bad })('faux/x', context, {}));
    expect(out.at(-1)).toMatchObject({ type: 'error', message: { errorMessage: expect.stringContaining('responses.0') } });
    const none = await events(createFauxStreamFn()('faux/x', context, {}));
    expect(none.at(-1)).toMatchObject({ type: 'error', message: { errorMessage: expect.stringContaining('no faux script') } });
  });
});

describe('faux without a script', () => {
  it('fails the request with a message that says how to configure one', async () => {
    const events: AssistantStreamEvent[] = [];
    for await (const event of createFauxStreamFn({})('demo', { messages: [], tools: [] }, {})) events.push(event);
    const end = events.at(-1)!;
    expect(end.type).toBe('error');
    expect(end.type === 'error' && end.message.errorMessage).toBe('faux: no faux script is configured; set faux.script in the config or XDOG_FAUX_SCRIPT (see docs/faux.md)');
  });
});

describe('faux plugin', () => {
  it('binds a "faux" ModelProvider that reads faux.script from the config', async () => {
    const script = join(dir, 'plugin.json');
    writeFileSync(script, JSON.stringify({ responses: [{ text: 'from the plugin' }] }));
    const kernel = await createKernel({ plugins: [fauxPlugin], config: { faux: { script: 'plugin.json' } }, cwd: dir });
    const providers = kernel.getAll<ModelProvider>(ModelProviderContribution);
    const faux = providers.find((provider) => provider.name === 'faux')!;
    expect(faux).toBeDefined();
    const agent = kernel.createAgent(faux.stream, { model: 'faux/any' });
    await agent.prompt('hello').result();
    expect(agent.messages.at(-1)).toMatchObject({ content: [{ type: 'text', text: 'from the plugin' }] });
  });

  it('keeps no request in memory: a gateway that runs for weeks does not grow with every prompt', async () => {
    const script = join(dir, 'many.json');
    writeFileSync(script, JSON.stringify({ responses: Array.from({ length: 5 }, (_, i) => ({ text: `answer ${i}` })) }));
    const kernel = await createKernel({ plugins: [fauxPlugin], config: { faux: { script } }, cwd: dir });
    const faux = kernel.getAll<ModelProvider>(ModelProviderContribution).find((provider) => provider.name === 'faux')! as ModelProvider & { stream: FauxStreamFn };
    const agent = kernel.createAgent(faux.stream, { model: 'faux/any' });
    for (let i = 0; i < 5; i++) await agent.prompt(`prompt ${i}`).result();
    expect(faux.stream.callCount).toBe(5);
    expect(faux.stream.requests).toEqual([]);
  });

  it('XDOG_FAUX_SCRIPT wins over the config key', () => {
    expect(fauxOptionsFrom({ faux: { script: 'a.json' } }, '/w', { XDOG_FAUX_SCRIPT: '/abs/b.json' })).toEqual({ script: '/abs/b.json' });
    expect(fauxOptionsFrom({ faux: { script: 'a.json' } }, '/w', {})).toEqual({ script: '/w/a.json' });
  });
});
