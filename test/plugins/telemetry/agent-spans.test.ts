import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { createKernel, type AgentTool, type Kernel, type XdogConfig } from '../../../core/index.js';
import { createFauxStreamFn } from '../../../plugins/faux/index.js';
import telemetryPlugin, { telemetryOverride } from '../../../plugins/telemetry/index.js';
import extensionsPlugin, { extensionHostOf } from '../../../plugins/extensions/index.js';
import { modelRegistryFor } from '../../../core/model/registry.js';
import { tempProject, writeExtension } from '../extensions/support.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const lookup: AgentTool = {
  name: 'lookup',
  description: 'returns a key',
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
  execute: async () => ({ content: [{ type: 'text', text: 'found sk-ant-api03-abcdefghijklmnopqrstuvwxyz in the vault' }] }),
};

function stream() {
  return createFauxStreamFn({
    responses: (request) => (request.messages.some((message) => message.role === 'toolResult') ? { text: 'the secret is safe' } : { toolCalls: [{ id: 'call-1', name: 'lookup', arguments: { q: 'key' } }] }),
  });
}

async function kernelWith(captureContent: boolean, config: XdogConfig = {}): Promise<Kernel> {
  const kernel = await createKernel({ config, plugins: [telemetryPlugin], overrides: [await telemetryOverride({ tracerProvider: provider, captureContent })] });
  await kernel.open();
  return kernel;
}

const byName = (spans: ReadableSpan[], prefix: string) => spans.filter((span) => span.name.startsWith(prefix));

describe('GenAI spans of a kernel-built agent', () => {
  beforeAll(() => provider.register());
  afterAll(() => provider.shutdown());

  it('nests chat and execute_tool under invoke_agent, with usage and tool attributes and no content by default', async () => {
    exporter.reset();
    const kernel = await kernelWith(false);
    const agent = kernel.createAgent(stream(), { model: 'faux/test' }, { tools: [lookup] });
    const result = await agent.prompt('find the key').result();
    expect(result.status).toBe('completed');
    const spans = exporter.getFinishedSpans();
    const [root] = byName(spans, 'invoke_agent');
    expect(root).toBeDefined();
    const chats = byName(spans, 'chat ');
    const [tool] = byName(spans, 'execute_tool');
    expect(chats).toHaveLength(2);
    for (const span of [...chats, tool!]) {
      expect(span.spanContext().traceId).toBe(root!.spanContext().traceId);
      expect(span.parentSpanContext?.spanId).toBe(root!.spanContext().spanId);
    }
    expect(root!.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.provider.name': 'faux', 'gen_ai.request.model': 'test', 'xdog.run.status': 'completed' });
    expect(chats[0]!.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.response.finish_reasons': ['tool_call'] });
    expect(typeof chats[0]!.attributes['gen_ai.usage.input_tokens']).toBe('number');
    expect(chats[0]!.attributes).not.toHaveProperty('xdog.cost.usd'); // faux/test has no price: unknown, not 0
    expect(tool!.attributes).toMatchObject({ 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.id': 'call-1', 'xdog.tool.outcome': 'ok' });
    const everything = JSON.stringify(spans.map((span) => span.attributes));
    expect(everything).not.toContain('find the key');
    expect(everything).not.toContain('vault');
    await kernel.close();
  });

  it('records bounded, redacted contents with capture_content', async () => {
    exporter.reset();
    const kernel = await kernelWith(true);
    const agent = kernel.createAgent(stream(), { model: 'faux/test' }, { tools: [lookup] });
    await agent.prompt('find the key').result();
    const spans = exporter.getFinishedSpans();
    const [tool] = byName(spans, 'execute_tool');
    const [root] = byName(spans, 'invoke_agent');
    expect(String(root!.attributes['gen_ai.input.messages'])).toContain('find the key');
    expect(String(root!.attributes['gen_ai.output.messages'])).toContain('the secret is safe');
    expect(String(tool!.attributes['gen_ai.tool.call.result'])).toContain('in the vault');
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain('sk-ant-api03-abcdefghijklmnopqrstuvwxyz');
    await kernel.close();
  });

  it('prices each chat span as the usage ledger does, from the config\'s model price', async () => {
    exporter.reset();
    const kernel = await kernelWith(false, { models: [{ id: 'faux/test', price: { input: 3, output: 15, cache_read: 0.3 } }] });
    const agent = kernel.createAgent(stream(), { model: 'faux/test' }, { tools: [lookup] });
    await agent.prompt('find the key').result();
    const chats = byName(exporter.getFinishedSpans(), 'chat ');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      const tokens = (name: string) => Number(chat.attributes[`gen_ai.usage.${name}`] ?? 0);
      const perMillion = tokens('input_tokens') * 3 + tokens('output_tokens') * 15 + tokens('cache_read.input_tokens') * 0.3 + tokens('cache_creation.input_tokens') * 3;
      expect(tokens('input_tokens')).toBeGreaterThan(0);
      expect(chat.attributes['xdog.cost.usd']).toBeCloseTo(perMillion / 1e6, 12);
    }
    await kernel.close();
  });

  it("traces an extension callback as a span in the run's trace", async () => {
    exporter.reset();
    const project = tempProject();
    writeExtension(project, 'watch', 'export default (api) => api.beforeToolCall(() => undefined);');
    const kernel = await createKernel({ config: { extensions: ['watch'] }, cwd: project, plugins: [telemetryPlugin, extensionsPlugin], overrides: [await telemetryOverride({ tracerProvider: provider })] });
    await kernel.open();
    try {
      const agent = kernel.createAgent(stream(), { model: 'faux/test' }, { tools: [lookup] });
      expect((await agent.prompt('find the key').result()).status).toBe('completed');
      const spans = exporter.getFinishedSpans();
      const [callback] = byName(spans, 'extension watch').filter((span) => span.attributes['xdog.extension.callback'] === 'beforeToolCall');
      expect(callback).toBeDefined();
      expect(callback!.attributes).toMatchObject({ 'xdog.extension': 'watch' });
      const [root] = byName(spans, 'invoke_agent');
      expect(callback!.spanContext().traceId).toBe(root!.spanContext().traceId);
    } finally {
      await kernel.close();
    }
  });

  it("gives an extension provider's model call a chat span like a built-in provider's, with the extension's stream under it", async () => {
    exporter.reset();
    const project = tempProject();
    writeExtension(
      project,
      'relay',
      `export default (api) => api.registerProvider('prov', { models: [{ id: 'm1' }], async *stream() {
        yield { type: 'text', text: 'relayed' };
        yield { type: 'usage', input: 11, output: 4 };
        yield { type: 'done' };
      } });`,
    );
    const kernel = await createKernel({ config: { extensions: ['relay'] }, cwd: project, plugins: [telemetryPlugin, extensionsPlugin], overrides: [await telemetryOverride({ tracerProvider: provider })] });
    await kernel.open();
    try {
      await extensionHostOf(kernel)!.activateAll();
      const agent = kernel.createAgent(modelRegistryFor(kernel).streamFn, { model: 'ext-relay-prov/m1' });
      expect((await agent.prompt('hello').result()).status).toBe('completed');
      const spans = exporter.getFinishedSpans();
      const [root] = byName(spans, 'invoke_agent');
      const [chat] = byName(spans, 'chat m1');
      expect(chat!.parentSpanContext?.spanId).toBe(root!.spanContext().spanId);
      expect(chat!.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'ext-relay-prov',
        'gen_ai.request.model': 'm1',
        'gen_ai.response.model': 'm1',
        'gen_ai.usage.input_tokens': 11,
        'gen_ai.usage.output_tokens': 4,
        'gen_ai.response.finish_reasons': ['stop'],
      });
      // The extension's own stream() is its callback span, inside the chat span it serves.
      const [callback] = byName(spans, 'extension relay');
      expect(callback!.attributes).toMatchObject({ 'xdog.extension': 'relay', 'xdog.extension.callback': 'provider prov stream' });
      expect(callback!.parentSpanContext?.spanId).toBe(chat!.spanContext().spanId);
    } finally {
      await kernel.close();
    }
  });

  it("gives a compaction's summary request a chat span under the compaction span, recording its text only with capture_content", async () => {
    const turn = (label: string) => `${label} ${'lorem ipsum '.repeat(40)}`;
    for (const captureContent of [false, true]) {
      exporter.reset();
      const kernel = await kernelWith(captureContent, { models: [{ id: 'faux/test', price: { input: 3, output: 15 } }] });
      const model = createFauxStreamFn({ responses: [{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: '## Goal\nkeep sk-ant-api03-abcdefghijklmnopqrstuvwxyz out' }] });
      const agent = kernel.createAgent(model, { model: 'faux/test' }, { compaction: { keepRecentTokens: 50 } });
      for (const label of ['first', 'second', 'third']) await agent.prompt(turn(label)).result();
      expect((await agent.compact()).compacted).toBe(true);
      const spans = exporter.getFinishedSpans();
      const [compaction] = byName(spans, 'compaction');
      const summaries = byName(spans, 'chat ').filter((span) => span.parentSpanContext?.spanId === compaction!.spanContext().spanId);
      expect(summaries).toHaveLength(1);
      const chat = summaries[0]!;
      expect(chat.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'faux', 'gen_ai.request.model': 'test', 'gen_ai.response.finish_reasons': ['stop'] });
      expect(Number(chat.attributes['gen_ai.usage.input_tokens'])).toBeGreaterThan(0);
      expect(Number(chat.attributes['xdog.cost.usd'])).toBeGreaterThan(0);
      const recorded = JSON.stringify(chat.attributes);
      expect(recorded).not.toContain('sk-ant-api03-abcdefghijklmnopqrstuvwxyz');
      if (captureContent) {
        expect(String(chat.attributes['gen_ai.input.messages'])).toContain('first lorem ipsum');
        expect(String(chat.attributes['gen_ai.output.messages'])).toContain('## Goal');
      } else {
        expect(recorded).not.toContain('lorem ipsum');
        expect(recorded).not.toContain('## Goal');
      }
      await kernel.close();
    }
  });

  it('leaves agents alone when telemetry is not configured', async () => {
    exporter.reset();
    const kernel = await createKernel({ plugins: [telemetryPlugin] });
    await kernel.open();
    const agent = kernel.createAgent(stream(), { model: 'faux/test' }, { tools: [lookup] });
    await agent.prompt('find the key').result();
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    await kernel.close();
  });
});
