/**
 * Telemetry in `xdog agent chat` (built CLI, faux model, a real MCP server
 * from npm): without a `telemetry:` section no OpenTelemetry module is even
 * resolved (the start pays nothing); with one, the chat's run, model calls,
 * tool call and the MCP `tools/call` request make one trace.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCliAsync } from '../support/cli.js';
import { until } from '../support/claw.js';
import { tempDir } from '../support/temp.js';
import { startOtlpReceiver, traceOf, type OtlpReceiver } from '../support/otlp-receiver.js';
import { EVERYTHING } from '../plugins/mcp/support.js';

/** A module-resolution hook that logs every @opentelemetry module the process resolves. */
function importLogger(dir: string): { env: NodeJS.ProcessEnv; resolved(): string[] } {
  const log = path.join(dir, 'otel-imports.log');
  const hook = `export async function resolve(specifier, context, next) { const result = await next(specifier, context); if (result.url.includes('@opentelemetry')) (await import('node:fs')).appendFileSync(${JSON.stringify(log)}, result.url + '\\n'); return result; }`;
  const preload = path.join(dir, 'preload.mjs');
  fs.writeFileSync(preload, `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});\n`);
  return { env: { NODE_OPTIONS: `--import=${preload}` }, resolved: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : []) };
}

function setup(telemetry?: Record<string, unknown>) {
  const dir = tempDir('xdog-chat-otel-');
  const config = path.join(dir, 'config.yaml');
  fs.writeFileSync(config, stringify({ mcp_servers: { every: { command: process.execPath, args: [EVERYTHING, 'stdio'], allow_tools: true, timeout: 30 } }, ...(telemetry ? { telemetry } : {}) }));
  const script = path.join(dir, 'script.json');
  fs.writeFileSync(script, JSON.stringify({ responses: [{ toolCalls: [{ id: 'mcp-1', name: 'every__echo', arguments: { message: 'via chat' } }] }, { text: 'all done' }] }));
  const logger = importLogger(dir);
  return { env: { XDOG_CONFIG: config, XDOG_FAUX_SCRIPT: script, XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_DATA_HOME: path.join(dir, 'data'), ...logger.env }, resolved: logger.resolved };
}

describe('telemetry in xdog agent chat', { timeout: 180_000 }, () => {
  let otlp: OtlpReceiver;
  beforeAll(async () => {
    otlp = await startOtlpReceiver();
  });
  afterAll(() => otlp.close());

  it('resolves no OpenTelemetry module when telemetry is not configured', async () => {
    const { env, resolved } = setup();
    const result = await runCliAsync(['agent', 'chat', 'faux/demo', '--no-tools', '--mcp', 'every', 'echo please'], { env });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('all done');
    expect(resolved()).toEqual([]);
  });

  it('traces the chat: invoke_agent → chat, execute_tool → the MCP tools/call span with MCP attributes', async () => {
    const { env, resolved } = setup({ exporter: 'otlp', endpoint: otlp.url, export_interval_ms: 200 });
    const result = await runCliAsync(['agent', 'chat', 'faux/demo', '--no-tools', '--mcp', 'every', 'echo please'], { env });
    expect(result.status, result.stderr).toBe(0);
    expect(resolved().some((url) => url.includes('@opentelemetry/sdk-trace-node'))).toBe(true);
    // The process flushes its spans before it exits.
    await until(() => otlp.spans.some((span) => span.name === 'tools/call echo'), 'the MCP span at the receiver', 30_000);
    const mcp = otlp.spans.find((span) => span.name === 'tools/call echo')!;
    const spans = traceOf(otlp.spans, mcp.traceId);
    const tool = spans.find((span) => span.spanId === mcp.parentSpanId)!;
    expect(tool.name).toBe('execute_tool every__echo');
    expect(tool.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'mcp-1', 'gen_ai.tool.type': 'extension', 'xdog.tool.outcome': 'ok' });
    const root = spans.find((span) => span.spanId === tool.parentSpanId)!;
    expect(root.name).toBe('invoke_agent xdog');
    expect(spans.filter((span) => span.name === 'chat demo' && span.parentSpanId === root.spanId)).toHaveLength(2);
    expect(mcp.kind).toBe(3); // CLIENT
    expect(mcp.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'gen_ai.operation.name': 'execute_tool', 'network.transport': 'pipe', 'xdog.mcp.server': 'every' });
    expect(JSON.stringify(spans)).not.toContain('via chat');
  });
});
