/**
 * The `telemetry:` config's OTLP wires through the official exporters, to a
 * receiver that decodes each one (test/support/otlp-receiver.ts): a kernel's
 * agent run arrives as one trace over http/protobuf and over gRPC, with the
 * configured headers (gRPC metadata) and the metrics on the same wire.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernel, type AgentTool, type TelemetryConfig } from '../../../core/index.js';
import { createFauxStreamFn } from '../../../plugins/faux/index.js';
import telemetryPlugin from '../../../plugins/telemetry/index.js';
import { until } from '../../support/claw.js';
import { startOtlpReceiver, traceOf, type OtlpReceiver, type ReceivedSpan } from '../../support/otlp-receiver.js';

const lookup: AgentTool = {
  name: 'lookup',
  description: 'returns a value',
  parameters: { type: 'object', properties: {} },
  execute: async () => ({ content: [{ type: 'text', text: 'forty-two' }] }),
};

const stream = () =>
  createFauxStreamFn({ responses: (request) => (request.messages.some((message) => message.role === 'toolResult') ? { text: 'done' } : { toolCalls: [{ id: 'w-1', name: 'lookup', arguments: {} }] }) });

describe('OTLP wires', { timeout: 120_000 }, () => {
  let otlp: OtlpReceiver;
  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    process.env.XDOG_TEST_COLLECTOR_KEY = 'collector-key-7f3e';
  });
  afterAll(() => otlp.close());

  for (const protocol of ['http/protobuf', 'grpc'] as const) {
    it(`exports one trace and the metrics over ${protocol}`, async () => {
      const telemetry: TelemetryConfig = { exporter: 'otlp', protocol, endpoint: protocol === 'grpc' ? otlp.grpcUrl : otlp.url, export_interval_ms: 200, headers_env: { 'x-collector-key': 'XDOG_TEST_COLLECTOR_KEY' } };
      const kernel = await createKernel({ config: { telemetry }, plugins: [telemetryPlugin] });
      await kernel.open();
      const agent = kernel.createAgent(stream(), { model: 'faux/wire' }, { tools: [lookup] });
      expect((await agent.prompt('look it up').result()).status).toBe('completed');
      // Closing the kernel flushes the pipeline: spans and the last metric collection go out.
      await kernel.close();

      const isRoot = (span: ReceivedSpan) => span.wire === protocol && span.name === 'invoke_agent xdog';
      await until(() => otlp.spans.some(isRoot), `the run's span over ${protocol}`, 60_000);
      const root = otlp.spans.find(isRoot)!;
      const spans = traceOf(otlp.spans, root.traceId);
      expect(spans.every((span) => span.wire === protocol)).toBe(true);
      expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(root.parentSpanId).toBeUndefined();
      expect(root.service).toBe('xdog');
      const chats = spans.filter((span) => span.name === 'chat wire');
      expect(chats).toHaveLength(2);
      for (const chat of chats) {
        expect(chat.parentSpanId).toBe(root.spanId);
        expect(chat.kind).toBe(3); // CLIENT
        expect(chat.attributes).toMatchObject({ 'gen_ai.provider.name': 'faux', 'gen_ai.request.model': 'wire' });
        expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      }
      const tool = spans.find((span) => span.name === 'execute_tool lookup')!;
      expect(tool).toMatchObject({ parentSpanId: root.spanId, attributes: { 'gen_ai.tool.call.id': 'w-1', 'xdog.tool.outcome': 'ok' } });
      expect(otlp.headers.get(`${protocol} traces`)?.['x-collector-key']).toBe('collector-key-7f3e');
      await until(() => otlp.metricWires.has(protocol) && otlp.metricNames.has('xdog.runs'), `metrics over ${protocol}`, 60_000);
      expect(otlp.headers.get(`${protocol} metrics`)?.['x-collector-key']).toBe('collector-key-7f3e');
    });
  }
});
