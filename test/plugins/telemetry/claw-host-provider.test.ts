/**
 * A claw gateway in this process on the host's own TracerProvider (an
 * InMemorySpanExporter, `telemetryOverride`), with server-everything from npm
 * as the group's MCP server and the scripted faux model:
 * - the group kernel gets the host's telemetry, scoped to the group: the run,
 *   its agent, its model and MCP calls carry `xdog.group`;
 * - an MCP server's sampling request is a SERVER span under the tools/call
 *   that caused it, with the sampling model call as a `chat` span under it;
 * - a group run's automatic compaction (its context passed the threshold) is
 *   a compaction span in the run, its summary request a `chat` span under it;
 * and neither chat span records message text (capture_content is off).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { ClockToken, bootKernel, type Kernel, type XdogConfig } from '../../../core/index.js';
import { Gateway, connectGateway, openConfiguredStore, type GatewayConnection } from '../../../plugins/claw-gateway/index.js';
import { gatewayLocations } from '../../../plugins/claw-gateway/locations.js';
import { telemetryOverride } from '../../../plugins/telemetry/index.js';
import { FAUX_MODEL_SCRIPT, collect, until } from '../../support/claw.js';
import { tempDir } from '../../support/temp.js';
import { EVERYTHING } from '../mcp/support.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const named = (prefix: string) => exporter.getFinishedSpans().filter((span) => span.name.startsWith(prefix));
const parentOf = (span: ReadableSpan) => exporter.getFinishedSpans().find((candidate) => candidate.spanContext().spanId === span.parentSpanContext?.spanId);

describe('a claw gateway on a host TracerProvider', { timeout: 300_000 }, () => {
  let kernel: Kernel;
  let gateway: Gateway;
  let client: GatewayConnection;
  let root: string;

  /** Sends one prompt and waits for its run to end. */
  async function prompt(text: string): Promise<void> {
    const ends = collect(client, 'run.end');
    const receipt = (await client.call('prompt', { text, idempotencyKey: randomUUID() })) as { inputId: string };
    await until(() => ends.some((end) => end.inputId === receipt.inputId), `the run of "${text}" to end`, 120_000);
  }

  beforeAll(async () => {
    provider.register();
    root = tempDir('xdog-host-otel-');
    const workspace = path.join(root, 'workspace');
    fs.mkdirSync(workspace);
    for (const [name, dir] of [['XDG_RUNTIME_DIR', 'run'], ['XDG_STATE_HOME', 'state'], ['XDG_DATA_HOME', 'data'], ['XDG_CONFIG_HOME', 'config'], ['XDG_CACHE_HOME', 'cache']] as const) process.env[name] = path.join(root, dir);
    const config = {
      faux: { script: FAUX_MODEL_SCRIPT },
      mcp_servers: { everything: { transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], allow_tools: true, timeout: 60, sampling: { allow: true, max_tokens: 200 } } },
      models: [{ id: 'faux/demo', price: { input: 3, output: 15 } }],
      claw: {
        store: { type: 'sqlite', path: path.join(root, 'claw.db') },
        // A tiny window (50 tokens over the reserve): after a few turns the gateway compacts before the next one.
        groups: { main: { workspace, model: 'faux/demo', enabled_tools: [], mcp_servers: ['everything'], compaction: { context_window: 250, reserve_tokens: 200, keep_recent_tokens: 5, memory_flush: false } } },
      },
    } as XdogConfig;
    kernel = await bootKernel({ config, cwd: root, overrides: [await telemetryOverride({ tracerProvider: provider })] });
    const opened = await openConfiguredStore(kernel);
    const locations = gatewayLocations(process.env);
    gateway = await Gateway.start({ kernel, store: opened.store, dataSource: opened.dataSource, storeLocation: opened.location, clock: kernel.get(ClockToken), version: 'test', locations, log: () => undefined });
    client = await connectGateway({ client: 'test', locations });
    await client.call('subscribe', {});
    await client.call('mcp.connect' as never, { server: 'everything', expectedSessionId: null } as never);
    await until(async () => ((await client.call('mcp.tools' as never, {} as never)) as Array<{ alias: string }>).some((tool) => tool.alias === 'everything__trigger-sampling-request'), 'the sampling tool to be listed', 60_000);
  }, 180_000);

  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await kernel?.close();
    await provider.shutdown();
  });

  it("traces the group's runs on the host provider, every span of the group kernel carrying xdog.group", async () => {
    exporter.reset();
    await prompt(`calls ${JSON.stringify([{ name: 'everything__echo', arguments: { message: 'hello' } }])}`);
    const [run] = named('claw.run');
    expect(run!.attributes).toMatchObject({ 'xdog.group': 'main', 'xdog.run.status': 'completed' });
    const [agent] = named('invoke_agent');
    expect(agent!.parentSpanContext?.spanId).toBe(run!.spanContext().spanId);
    const [chat] = named('chat ');
    expect(chat!.attributes).toMatchObject({ 'xdog.group': 'main', 'gen_ai.operation.name': 'chat' });
    const [mcpCall] = named('tools/call echo');
    expect(mcpCall!.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'xdog.mcp.server': 'everything' });
    // The MCP client span is made by the mcp plugin on the group kernel's telemetry: the group comes from the scoping.
    for (const span of exporter.getFinishedSpans()) expect(span.attributes['xdog.group'], span.name).toBe('main');
  });

  it("gives an MCP server's sampling call a chat span under the server's request, under the tools/call that caused it", async () => {
    exporter.reset();
    await prompt(`calls ${JSON.stringify([{ name: 'everything__trigger-sampling-request', arguments: { prompt: 'capital of France?', maxTokens: 50 } }])}`);
    const [call] = named('tools/call trigger-sampling-request');
    const [request] = named('sampling/createMessage');
    expect(request, 'the sampling request span').toBeDefined();
    expect(request!.kind).toBe(1); // SERVER: the server asked, xdog answered
    expect(request!.parentSpanContext?.spanId).toBe(call!.spanContext().spanId);
    expect(request!.attributes).toMatchObject({ 'mcp.method.name': 'sampling/createMessage', 'xdog.mcp.server': 'everything', 'xdog.group': 'main' });
    const chats = named('chat ').filter((span) => span.parentSpanContext?.spanId === request!.spanContext().spanId);
    expect(chats).toHaveLength(1);
    const chat = chats[0]!;
    expect(chat.kind).toBe(2); // CLIENT
    expect(chat.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'faux', 'gen_ai.request.model': 'demo', 'gen_ai.response.finish_reasons': ['stop'], 'xdog.group': 'main' });
    expect(Number(chat.attributes['gen_ai.usage.input_tokens'])).toBeGreaterThan(0);
    expect(Number(chat.attributes['xdog.cost.usd'])).toBeGreaterThan(0);
    expect(JSON.stringify(chat.attributes)).not.toContain('capital of France');
  });

  it("gives a group run's automatic compaction a chat span for its summary request, under the compaction span in the run", async () => {
    exporter.reset();
    for (const word of ['one', 'two', 'three', 'four']) await prompt(`${word} `.repeat(20));
    const [compaction] = named('compaction');
    expect(compaction, 'an automatic compaction').toBeDefined();
    expect(compaction!.attributes).toMatchObject({ 'xdog.compaction.reason': 'threshold', 'xdog.compaction.compacted': true, 'xdog.group': 'main' });
    // In the run whose context passed the threshold: claw.run → invoke_agent → compaction → chat.
    const agent = parentOf(compaction!);
    expect(agent?.name).toBe('invoke_agent main');
    expect(parentOf(agent!)?.name).toBe('claw.run main');
    const summaries = named('chat ').filter((span) => span.parentSpanContext?.spanId === compaction!.spanContext().spanId);
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'demo', 'gen_ai.response.finish_reasons': ['stop'], 'xdog.group': 'main' });
    expect(Number(summaries[0]!.attributes['xdog.cost.usd'])).toBeGreaterThan(0);
    expect(JSON.stringify(summaries[0]!.attributes)).not.toContain('gen_ai.input.messages');
  });
});
