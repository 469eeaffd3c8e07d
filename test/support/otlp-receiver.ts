/**
 * An OTLP receiver for tests (no collector binary exists for this machine):
 * it takes what the official exporters send, over each wire, and keeps the
 * spans, flattened:
 * - HTTP POST /v1/traces and /v1/metrics, JSON or protobuf by content-type;
 * - gRPC (`grpcUrl`), the collector's TraceService/MetricsService Export.
 * Protobuf bodies are decoded with protobufjs against the OTLP schema's
 * field numbers (the subset below), so a wrong encoding fails to decode.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs';

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
  /** How it arrived: "http/json", "http/protobuf" or "grpc". */
  wire: string;
}

/** opentelemetry/proto (common, resource, trace, metrics and the collector requests): the fields the tests read. */
const OTLP_SCHEMA = `syntax = "proto3";
package otlp;
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7; } }
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message Resource { repeated KeyValue attributes = 1; }
message InstrumentationScope { string name = 1; string version = 2; }
message Status { string message = 2; int32 code = 3; }
message Span { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9; Status status = 15; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message Metric { string name = 1; string description = 2; string unit = 3; }
message ScopeMetrics { InstrumentationScope scope = 1; repeated Metric metrics = 2; }
message ResourceMetrics { Resource resource = 1; repeated ScopeMetrics scope_metrics = 2; }
message ExportMetricsServiceRequest { repeated ResourceMetrics resource_metrics = 1; }
`;
const schema = protobuf.parse(OTLP_SCHEMA).root;
const TraceRequest = schema.lookupType('otlp.ExportTraceServiceRequest');
const MetricsRequest = schema.lookupType('otlp.ExportMetricsServiceRequest');

/** A decoded protobuf request in the JSON encoding's shape (camelCase; ids as hex, the JSON encoding's form). */
function fromProtobuf(type: protobuf.Type, body: Uint8Array): Record<string, unknown> {
  // JSON.stringify hands a Buffer to the replacer as {type: "Buffer", data}; a plain Uint8Array as itself.
  const ids = (_key: string, value: unknown) =>
    value instanceof Uint8Array ? Buffer.from(value).toString('hex') : (value as { type?: unknown })?.type === 'Buffer' ? Buffer.from((value as { data: number[] }).data).toString('hex') : value;
  return JSON.parse(JSON.stringify(type.toObject(type.decode(body), { longs: String }), ids));
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
  /** OTLP/HTTP base URL (JSON and protobuf). */
  url: string;
  /** OTLP/gRPC URL. */
  grpcUrl: string;
  spans: ReceivedSpan[];
  /** Raw metric names received, by wire ("http/json", "http/protobuf", "grpc"). */
  metricNames: Set<string>;
  metricWires: Set<string>;
  /** The last request's headers (gRPC: metadata), by "WIRE traces" / "WIRE metrics". */
  headers: Map<string, Record<string, string>>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metricNames = new Set<string>();
  const metricWires = new Set<string>();
  const headers = new Map<string, Record<string, string>>();
  const takeSpans = (body: any, wire: string) => {
    for (const resource of body.resourceSpans ?? []) {
      const service = attributesOf(resource.resource?.attributes)['service.name'] as string | undefined;
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          spans.push({ traceId: span.traceId, spanId: span.spanId, ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}), name: span.name, kind: span.kind, attributes: attributesOf(span.attributes), status: span.status, service, wire });
        }
      }
    }
  };
  const takeMetrics = (body: any, wire: string) => {
    metricWires.add(wire);
    for (const resource of body.resourceMetrics ?? []) for (const scope of resource.scopeMetrics ?? []) for (const metric of scope.metrics ?? []) metricNames.add(metric.name);
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const binary = request.headers['content-type'] === 'application/x-protobuf';
      const wire = binary ? 'http/protobuf' : 'http/json';
      headers.set(`${wire} ${request.url === '/v1/traces' ? 'traces' : 'metrics'}`, Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])));
      try {
        if (request.url === '/v1/traces') takeSpans(binary ? fromProtobuf(TraceRequest, raw) : JSON.parse(raw.toString('utf8') || '{}'), wire);
        else if (request.url === '/v1/metrics') takeMetrics(binary ? fromProtobuf(MetricsRequest, raw) : JSON.parse(raw.toString('utf8') || '{}'), wire);
      } catch (error) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
        return;
      }
      // An empty Export*ServiceResponse: "{}" in JSON, no bytes in protobuf.
      if (binary) response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      else response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  const rpc = new grpc.Server();
  const identity = (bytes: Buffer) => bytes;
  const exportMethod = (path: string) => ({ path, requestStream: false, responseStream: false, requestSerialize: identity, requestDeserialize: identity, responseSerialize: identity, responseDeserialize: identity });
  const exportHandler = (signal: string, take: (bytes: Buffer) => void): grpc.handleUnaryCall<Buffer, Buffer> => (call, callback) => {
    headers.set(`grpc ${signal}`, Object.fromEntries(Object.entries(call.metadata.getMap()).map(([name, value]) => [name, String(value)])));
    try {
      take(call.request);
      callback(null, Buffer.alloc(0));
    } catch (error) {
      callback({ code: grpc.status.INVALID_ARGUMENT, details: String(error) });
    }
  };
  rpc.addService({ Export: exportMethod('/opentelemetry.proto.collector.trace.v1.TraceService/Export') }, { Export: exportHandler('traces', (bytes) => takeSpans(fromProtobuf(TraceRequest, bytes), 'grpc')) });
  rpc.addService({ Export: exportMethod('/opentelemetry.proto.collector.metrics.v1.MetricsService/Export') }, { Export: exportHandler('metrics', (bytes) => takeMetrics(fromProtobuf(MetricsRequest, bytes), 'grpc')) });
  const grpcPort = await new Promise<number>((resolve, reject) => rpc.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    grpcUrl: `http://127.0.0.1:${grpcPort}`,
    spans,
    metricNames,
    metricWires,
    headers,
    close: async () => {
      rpc.forceShutdown();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
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
