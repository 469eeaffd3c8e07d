/**
 * An OTLP/HTTP JSON receiver for tests (no collector binary exists for this
 * machine): it takes POST /v1/traces and /v1/metrics as the official
 * exporters send them and keeps the spans, flattened.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status?: { code?: number; message?: string };
  service?: string;
}

function value(any: AnyValue | undefined): unknown {
  if (!any) return undefined;
  if (any.stringValue !== undefined) return any.stringValue;
  if (any.intValue !== undefined) return Number(any.intValue);
  if (any.boolValue !== undefined) return any.boolValue;
  if (any.doubleValue !== undefined) return any.doubleValue;
  if (any.arrayValue) return (any.arrayValue.values ?? []).map(value);
  return undefined;
}

function attributesOf(list: Array<{ key: string; value: AnyValue }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, value(entry.value)]));
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Raw metric names received. */
  metricNames: Set<string>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metricNames = new Set<string>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      if (request.url === '/v1/traces') {
        for (const resource of body.resourceSpans ?? []) {
          const service = attributesOf(resource.resource?.attributes)['service.name'] as string | undefined;
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({ traceId: span.traceId, spanId: span.spanId, ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}), name: span.name, kind: span.kind, attributes: attributesOf(span.attributes), status: span.status, service });
            }
          }
        }
      } else if (request.url === '/v1/metrics') {
        for (const resource of body.resourceMetrics ?? []) for (const scope of resource.scopeMetrics ?? []) for (const metric of scope.metrics ?? []) metricNames.add(metric.name);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    metricNames,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The spans of one trace. */
export function traceOf(spans: readonly ReceivedSpan[], traceId: string): ReceivedSpan[] {
  return spans.filter((span) => span.traceId === traceId);
}

/** True when `span` descends from `ancestor` within `spans`. */
export function descendsFrom(spans: readonly ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  const byId = new Map(spans.map((item) => [item.spanId, item]));
  for (let current: ReceivedSpan | undefined = span; current?.parentSpanId; current = byId.get(current.parentSpanId)) {
    if (current.parentSpanId === ancestor.spanId) return true;
  }
  return false;
}
