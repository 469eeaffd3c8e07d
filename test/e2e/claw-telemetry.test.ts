/**
 * Telemetry through a real gateway process, the faux model and an OTLP/HTTP
 * JSON receiver this test runs (test/support/otlp-receiver.ts):
 * - one `claw send` under TRACEPARENT whose run spawns two children that grep
 *   makes one trace: the caller's span → claw.run → invoke_agent → chat and
 *   execute_tool agent → each child's invoke_agent → its execute_tool grep,
 *   with GenAI attributes and no message text; the loopback /metrics is
 *   scraped and parsed;
 * - a webhook message with a `traceparent` header, with capture_content: the
 *   texts are there, an API key in a tool result is redacted; then a
 *   scheduled job's run on the same gateway, a trace of its own with the
 *   group and the job; this gateway exports over OTLP/HTTP protobuf;
 * - on PostgreSQL, a prompt sent to one worker for a group another worker
 *   owns: the handoff carries the trace context, the owner's run joins it;
 *   these workers export over OTLP/gRPC.
 */
import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER, signBody } from '../../plugins/channels/index.js';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { clawSandbox, connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { repoRoot, runCli } from '../support/cli.js';
import { descendsFrom, startOtlpReceiver, traceOf, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { WEBHOOK_SECRET, startReceiver, webhookChannelConfig, type Receiver } from '../support/webhook.js';
import { clawSandboxOn, testPgUrl } from '../support/stores.js';
import { startWorker, type ClawWorker } from '../support/claw.js';
import { tempDir } from '../support/temp.js';
import { EVERYTHING } from '../plugins/mcp/support.js';

const API_KEY = 'sk-ant-api03-Zx9yQ8wV7uT6sR5qP4oN3mL2';
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function telemetryBlock(endpoint: string, extra: string[] = []): string {
  return ['telemetry:', '  exporter: otlp', `  endpoint: "${endpoint}"`, '  export_interval_ms: 200', ...extra.map((line) => `  ${line}`), ''].join('\n');
}

/** The MCP server "every" (server-everything from npm, stdio) the first test's group connects. */
const MCP_CONFIG = `mcp_servers:\n  every: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING)}, stdio], allow_tools: true, timeout: 30 }\n`;
/** A price for the faux model, so chat spans and the usage ledger both carry a cost. */
const PRICE_CONFIG = 'models:\n  - { id: faux/demo, price: { input: 3, output: 15 } }\n';

function sandboxWith(extraConfig: string, options: { mcp?: boolean } = {}): ClawSandbox {
  const sandbox = clawSandbox(extraConfig);
  // With MCP, the parent's first turn also calls every__echo (test/fixtures/telemetry-model.mjs).
  sandbox.env.XDOG_FAUX_SCRIPT = path.join(repoRoot, `test/fixtures/${options.mcp ? 'telemetry' : 'children'}-model.mjs`);
  const tools = `enabled_tools: [bash, read, grep, current_time, agent]${options.mcp ? '\n      mcp_servers: [every]' : ''}`;
  fs.writeFileSync(sandbox.configFile, fs.readFileSync(sandbox.configFile, 'utf8').replace('enabled_tools: [bash, read]', tools));
  fs.writeFileSync(path.join(sandbox.workspace, 'a.txt'), `alpha one ${API_KEY}\n`);
  fs.writeFileSync(path.join(sandbox.workspace, 'b.txt'), 'beta two\n');
  return sandbox;
}

const named = (spans: ReceivedSpan[], prefix: string) => spans.filter((span) => span.name.startsWith(prefix));

/** Waits until the trace holds the whole run: the root claw.run and three invoke_agent spans (the parent's, two children's), all ended. */
async function wholeTrace(receiver: OtlpReceiver, traceId: () => string | undefined): Promise<ReceivedSpan[]> {
  let spans: ReceivedSpan[] = [];
  await until(() => {
    const id = traceId();
    spans = id ? traceOf(receiver.spans, id) : [];
    return named(spans, 'claw.run').length === 1 && named(spans, 'invoke_agent').length === 3 && named(spans, 'execute_tool grep').length === 2;
  }, 'the whole trace at the receiver', 60_000);
  return spans;
}

/** The structure every run of "delegate alpha beta" has, whichever way its input came. */
function expectDelegationTrace(spans: ReceivedSpan[]): void {
  const [run] = named(spans, 'claw.run');
  const agents = named(spans, 'invoke_agent');
  const parent = agents.find((span) => span.parentSpanId === run!.spanId)!;
  expect(parent).toBeDefined();
  expect(parent.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'main', 'gen_ai.provider.name': 'faux', 'gen_ai.request.model': 'demo', 'xdog.group': 'main', 'xdog.run.status': 'completed' });
  const chats = named(spans, 'chat ');
  expect(chats.filter((span) => span.parentSpanId === parent.spanId)).toHaveLength(3);
  for (const chat of chats) {
    expect(chat.kind).toBe(3); // CLIENT
    expect(chat.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'faux' });
    expect(typeof chat.attributes['gen_ai.usage.input_tokens']).toBe('number');
    expect(Array.isArray(chat.attributes['gen_ai.response.finish_reasons'])).toBe(true);
  }
  const spawns = named(spans, 'execute_tool agent').filter((span) => span.parentSpanId === parent.spanId);
  expect(spawns.length).toBeGreaterThanOrEqual(3); // two spawns and a wait
  for (const spawn of spawns) expect(spawn.attributes).toMatchObject({ 'gen_ai.tool.name': 'agent', 'xdog.tool.outcome': 'ok' });
  expect(new Set(spawns.map((span) => span.attributes['gen_ai.tool.call.id'])).size).toBe(spawns.length);
  // Each child runs under the tool call that spawned it, and its grep under the child.
  const children = agents.filter((span) => span !== parent);
  for (const child of children) {
    expect(spawns.some((spawn) => child.parentSpanId === spawn.spanId)).toBe(true);
    const [grep] = named(spans, 'execute_tool grep').filter((span) => span.parentSpanId === child.spanId);
    expect(grep!.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'grep', 'xdog.tool.outcome': 'ok' });
    expect(descendsFrom(spans, grep!, run!)).toBe(true);
  }
}

/** Prometheus text → samples (name, labels, value). */
function parseMetrics(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const samples: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((label) => [label[1]!, label[2]!]));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The MCP tool call of the run's first turn: execute_tool under the parent's invoke_agent, the MCP client span under it. */
function expectMcpCall(spans: ReceivedSpan[], run: ReceivedSpan): void {
  const parent = named(spans, 'invoke_agent').find((span) => span.parentSpanId === run.spanId)!;
  const [mcpTool] = named(spans, 'execute_tool every__echo');
  expect(mcpTool).toMatchObject({ parentSpanId: parent.spanId, attributes: { 'gen_ai.tool.type': 'extension', 'xdog.tool.outcome': 'ok' } });
  const [mcpCall] = named(spans, 'tools/call echo');
  expect(mcpCall).toMatchObject({ parentSpanId: mcpTool!.spanId, kind: 3 });
  expect(mcpCall!.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'network.transport': 'pipe', 'xdog.mcp.server': 'every', 'xdog.group': 'main' });
}

describe('telemetry through the gateway', { timeout: 300_000 }, () => {
  let otlp: OtlpReceiver;
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  let hooks: Receiver | undefined;
  beforeAll(async () => {
    otlp = await startOtlpReceiver();
  });
  afterAll(() => otlp.close());
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    await hooks?.close();
    client = gateway = hooks = undefined;
  });

  it('joins a claw send under TRACEPARENT to one trace with the run, its model, tool and MCP calls and its children, priced as the ledger, without contents; /metrics counts them', async () => {
    const port = await freePort();
    const sandbox = sandboxWith(telemetryBlock(otlp.url, [`prometheus: { port: ${port} }`]) + MCP_CONFIG + PRICE_CONFIG, { mcp: true });
    gateway = await startGateway(sandbox, 90_000);
    const connected = runCli(['claw', 'mcp', 'connect', 'every'], { env: sandbox.env, cwd: sandbox.root });
    expect(connected.status, connected.stderr).toBe(0);
    const sent = runCli(['claw', 'send', 'delegate alpha beta'], { env: { ...sandbox.env, TRACEPARENT: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` }, cwd: sandbox.root });
    expect(sent).toMatchObject({ status: 0 });
    expect(sent.stdout).toContain('alpha (completed)');

    const spans = await wholeTrace(otlp, () => CALLER_TRACE);
    const [run] = named(spans, 'claw.run');
    expect(run!.parentSpanId).toBe(CALLER_SPAN);
    expect(run!.kind).toBe(2); // SERVER
    expect(run!.attributes).toMatchObject({ 'xdog.group': 'main', 'xdog.run.source': 'client', 'xdog.run.status': 'completed' });
    expect(run!.service).toBe('xdog');
    expectDelegationTrace(spans);
    expectMcpCall(spans, run!);
    // Each chat span's cost is the ledger's: their sum is what `claw usage` reports.
    const costs = named(spans, 'chat ').map((span) => span.attributes['xdog.cost.usd']);
    expect(costs.every((cost) => typeof cost === 'number' && cost > 0)).toBe(true);
    const usage = runCli(['claw', 'usage', '--json'], { env: sandbox.env, cwd: sandbox.root });
    expect(usage.status, usage.stderr).toBe(0);
    const ledger = (JSON.parse(usage.stdout) as Array<{ cost: number | null }>).reduce((sum, row) => sum + (row.cost ?? 0), 0);
    expect((costs as number[]).reduce((sum, cost) => sum + cost, 0)).toBeCloseTo(ledger, 9);
    // No contents by default: neither the prompt, nor the files the tools read, nor the answers.
    const recorded = JSON.stringify(spans.map((span) => span.attributes));
    for (const text of ['delegate alpha', 'alpha one', 'beta two', API_KEY, 'found 1 line', 'traced echo']) expect(recorded).not.toContain(text);
    expect(recorded).not.toContain('gen_ai.input.messages');

    const samples = parseMetrics(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
    const value = (name: string, labels: Record<string, string> = {}) =>
      samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, want]) => sample.labels[key] === want)).reduce((sum, sample) => sum + sample.value, 0);
    expect(value('xdog_runs_total', { xdog_group: 'main', xdog_run_status: 'completed' })).toBe(3);
    expect(value('xdog_model_calls_total', { xdog_group: 'main' })).toBe(7);
    expect(value('xdog_tool_calls_total', { gen_ai_tool_name: 'grep' })).toBe(2);
    expect(value('gen_ai_client_token_usage_count', { gen_ai_token_type: 'input' })).toBe(7);
    expect(value('xdog_cost_total', { xdog_group: 'main' })).toBeCloseTo(ledger, 9);
    expect(samples.some((sample) => sample.name === 'xdog_queue_depth' && sample.labels.xdog_group === 'main')).toBe(true);
    expect(value('xdog_memory_rss')).toBeGreaterThan(1_000_000);
    expect(value('xdog_store_transaction_duration_count', { db_system_name: 'sqlite', xdog_outcome: 'ok' })).toBeGreaterThan(0);
    // The run's own transactions (its appends) are counted for its group.
    expect(value('xdog_store_transaction_duration_count', { xdog_group: 'main', db_system_name: 'sqlite' })).toBeGreaterThan(0);
    expect(samples.some((sample) => sample.name === 'xdog_event_loop_delay_p99')).toBe(true);
    await until(() => otlp.metricNames.has('xdog.runs'), 'metrics over OTLP too', 30_000);
  });

  it('joins a webhook message with a traceparent header; with capture_content the texts are recorded and an API key in a tool result is redacted; a scheduled run is a trace with its group and job (over http/protobuf)', async () => {
    hooks = await startReceiver();
    const sandbox = sandboxWith(webhookChannelConfig(hooks.url, ['alice']) + telemetryBlock(otlp.url, ['capture_content: true', 'protocol: http/protobuf']) + MCP_CONFIG, { mcp: true });
    sandbox.env.XDOG_TEST_WEBHOOK_SECRET = WEBHOOK_SECRET;
    gateway = await startGateway(sandbox, 90_000);
    const connected = runCli(['claw', 'mcp', 'connect', 'every'], { env: sandbox.env, cwd: sandbox.root });
    expect(connected.status, connected.stderr).toBe(0);
    client = await connect(sandbox);
    const [channel] = (await client.callService('channels.status', { id: 'hook' })) as Array<{ transport: { url: string } }>;
    const traceId = 'a'.repeat(16) + 'b'.repeat(16);
    const body = JSON.stringify({ id: 'm1', sender: 'alice', text: 'delegate alpha beta' });
    const response = await fetch(channel!.transport.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signBody(WEBHOOK_SECRET, body), traceparent: `00-${traceId}-${'c'.repeat(16)}-01` },
      body,
    });
    expect(response.status).toBe(202);

    const spans = await wholeTrace(otlp, () => traceId);
    const [run] = named(spans, 'claw.run');
    expect(run!.parentSpanId).toBe('c'.repeat(16));
    expect(run!.attributes).toMatchObject({ 'xdog.run.source': 'channel', 'xdog.channel': 'hook' });
    expectDelegationTrace(spans);
    expectMcpCall(spans, run!);
    // With capture_content the MCP tool's result is recorded too.
    expect(String(named(spans, 'execute_tool every__echo')[0]!.attributes['gen_ai.tool.call.result'])).toContain('traced echo');
    const parent = named(spans, 'invoke_agent').find((span) => span.parentSpanId === run!.spanId)!;
    expect(String(parent.attributes['gen_ai.input.messages'])).toContain('delegate alpha beta');
    expect(String(parent.attributes['gen_ai.output.messages'])).toContain('alpha (completed)');
    const greps = named(spans, 'execute_tool grep').map((span) => String(span.attributes['gen_ai.tool.call.result']));
    expect(greps.some((result) => result.includes('alpha one [redacted]'))).toBe(true);
    expect(JSON.stringify(spans)).not.toContain(API_KEY);
    expect(spans.every((span) => span.wire === 'http/protobuf')).toBe(true);

    // A scheduled job's run on the same gateway: no caller, so a root span of its own, with the group and the job.
    const job = (await client.callService('schedule.add', { group: 'main', name: 'nightly', at: Date.now() + 500, prompt: 'delegate beta' })) as { id: string };
    let scheduled: ReceivedSpan[] = [];
    await until(() => {
      const root = otlp.spans.find((span) => span.name === 'claw.run main' && span.attributes['xdog.schedule.id'] === job.id);
      scheduled = root ? traceOf(otlp.spans, root.traceId) : [];
      return named(scheduled, 'invoke_agent').length === 2 && named(scheduled, 'execute_tool grep').length === 1;
    }, 'the scheduled run\'s trace at the receiver', 60_000);
    const [scheduledRun] = named(scheduled, 'claw.run');
    expect(scheduledRun!.parentSpanId).toBeUndefined();
    expect(scheduledRun!.kind).toBe(5); // CONSUMER
    expect(scheduledRun!.attributes).toMatchObject({ 'xdog.group': 'main', 'xdog.run.source': 'schedule', 'xdog.schedule': 'nightly', 'xdog.schedule.id': job.id, 'xdog.run.status': 'completed' });
    const scheduledAgent = named(scheduled, 'invoke_agent').find((span) => span.parentSpanId === scheduledRun!.spanId);
    expect(scheduledAgent!.attributes).toMatchObject({ 'gen_ai.agent.name': 'main', 'xdog.group': 'main' });
    expect(String(scheduledAgent!.attributes['gen_ai.input.messages'])).toContain('delegate beta');
    const [childGrep] = named(scheduled, 'execute_tool grep');
    expect(descendsFrom(scheduled, childGrep!, scheduledRun!)).toBe(true);
  });
});

describe('xdog claw doctor / xdog bug-report', { timeout: 180_000 }, () => {
  it('writes a 0600 bundle with versions, the gateway status, log lines, store integrity and runs, and none of the planted secrets', async () => {
    const planted = { env: 'planted-env-value-8f3a1c9d2e', header: 'hdr-planted-5b7e2a9c41', apiKey: 'sk-proj-PLANTEDabcdefghijklmnop1234', token: 'ghp_PLANTED0123456789abcdefghijklmnopqrstu' };
    const sandbox = clawSandbox(`providers:\n  openai: { api_key_env: PLANTED_OPENAI_KEY, headers: { X-Org-Token: "${planted.header}" } }\n`);
    sandbox.env.PLANTED_OPENAI_KEY = planted.env;
    sandbox.env.SOME_SERVICE_TOKEN = planted.token;
    const gateway = await startGateway(sandbox, 90_000);
    try {
      // A run whose prompt carries an API key: it reaches the run log, the transcript and maybe the log.
      expect(runCli(['claw', 'send', `run echo ${planted.apiKey}`], { env: sandbox.env, cwd: sandbox.root })).toMatchObject({ status: 0 });
      const file = path.join(sandbox.root, 'bundle.json');
      const made = runCli(['bug-report', '--output', file, '--json'], { env: sandbox.env, cwd: sandbox.root });
      expect(made.status, made.stderr).toBe(0);
      expect(JSON.parse(made.stdout)).toEqual({ file, gatewayRunning: true });
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const text = fs.readFileSync(file, 'utf8');
      for (const secret of Object.values(planted)) expect(text).not.toContain(secret);
      const bundle = JSON.parse(text);
      expect(bundle.versions).toMatchObject({ node: process.version });
      expect(bundle.config.values.providers.openai).toEqual({ api_key_env: 'PLANTED_OPENAI_KEY', headers: { 'X-Org-Token': '[redacted]' } });
      expect(bundle.gateway.running).toBe(true);
      expect(bundle.gateway.status.groups.map((group: { name: string }) => group.name)).toEqual(['main']);
      expect(bundle.store).toMatchObject({ type: 'sqlite', integrity: 'ok' });
      expect(bundle.store.rows).toBeTypeOf('object');
      expect(bundle.slowestRuns).toHaveLength(1);
      expect(bundle.slowestRuns[0]).toMatchObject({ group: 'main', status: 'completed' });
      // A second bundle never overwrites the first.
      const again = runCli(['claw', 'doctor', '--output', file], { env: sandbox.env, cwd: sandbox.root });
      expect(again.status).not.toBe(0);
      expect(again.stderr).toContain('already exists');
    } finally {
      await gateway.stop();
    }
  });
});

describe.runIf(testPgUrl())('telemetry across gateway workers [postgres]', { timeout: 300_000 }, () => {
  it('carries a prompt\'s traceparent through the handoff to the worker that owns the group', async () => {
    const otlp = await startOtlpReceiver();
    const root = tempDir('xdog-otel-workers-');
    const workspace = path.join(root, 'ws-g2');
    fs.mkdirSync(workspace);
    const sandbox = await clawSandboxOn('postgres', `    g2:\n      workspace: ${workspace}\n      model: faux/demo\n      enabled_tools: [bash, read]\n  lease_seconds: 3\n${telemetryBlock(otlp.grpcUrl, ['protocol: grpc'])}`);
    const workers: ClawWorker[] = [];
    try {
      for (const name of ['w1', 'w2']) workers.push(await startWorker(sandbox, name, 90_000));
      const [w1] = workers as [ClawWorker, ClawWorker];
      // Wait until each worker holds one group; then w1 sends to the one w2 owns.
      let remote: string | undefined;
      await until(async () => {
        const report = (await w1.client.call('workers.list', {})) as { workers: Array<{ name: string; alive: boolean; groups: Array<{ group: string }> }>; unowned: string[] };
        const w2 = report.workers.find((worker) => worker.name === 'w2' && worker.alive);
        remote = w2?.groups[0]?.group;
        return report.unowned.length === 0 && remote !== undefined && report.workers.find((worker) => worker.name === 'w1')!.groups.length === 1;
      }, 'the two groups to split over the workers', 60_000);
      const traceId = 'd'.repeat(32);
      const receipt = await w1.client.call('prompt', { group: remote, text: 'run echo traced', idempotencyKey: 'k-traced', _meta: { traceparent: `00-${traceId}-${'e'.repeat(16)}-01` } });
      expect(receipt).toMatchObject({ status: 'started', group: remote });
      let spans: ReceivedSpan[] = [];
      await until(() => {
        spans = traceOf(otlp.spans, traceId);
        return named(spans, 'claw.run').length === 1 && named(spans, 'invoke_agent').length === 1 && named(spans, 'execute_tool bash').length === 1;
      }, 'the handed-off run in the trace', 60_000);
      const [run] = named(spans, 'claw.run');
      expect(run!.parentSpanId).toBe('e'.repeat(16));
      expect(run!.attributes).toMatchObject({ 'xdog.group': remote });
      const [agent] = named(spans, 'invoke_agent');
      expect(agent!.parentSpanId).toBe(run!.spanId);
      expect(named(spans, 'execute_tool bash')[0]!.parentSpanId).toBe(agent!.spanId);
      expect(spans.every((span) => span.wire === 'grpc')).toBe(true);
    } finally {
      for (const worker of workers) await worker.client.close().catch(() => undefined);
      for (const worker of workers) await worker.process.stop();
      await otlp.close();
    }
  });
});
