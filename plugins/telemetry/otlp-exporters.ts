/**
 * The official OTLP exporters for the configured wire: http/json (default),
 * http/protobuf or grpc. Each wire's packages are imported only when it is
 * the one configured (gRPC pulls @grpc/grpc-js, protobuf its encoder).
 */
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace-node';
import type { TelemetryConfig } from '../../core/config.js';

export type OtlpProtocol = NonNullable<TelemetryConfig['protocol']>;

export interface OtlpExporters {
  spans: SpanExporter;
  metrics: PushMetricExporter;
}

/** Collectors listen for OTLP/HTTP on 4318 and OTLP/gRPC on 4317. */
export function defaultEndpoint(protocol: OtlpProtocol): string {
  return protocol === 'grpc' ? 'http://127.0.0.1:4317' : 'http://127.0.0.1:4318';
}

/** Exporters sending to `base` (a collector's base URL) with `headers` (gRPC: as metadata). */
export async function otlpExporters(protocol: OtlpProtocol, base: string, headers: Record<string, string>): Promise<OtlpExporters> {
  if (protocol === 'grpc') {
    const [{ Metadata }, { OTLPTraceExporter }, { OTLPMetricExporter }] = await Promise.all([
      import('@grpc/grpc-js'),
      import('@opentelemetry/exporter-trace-otlp-grpc'),
      import('@opentelemetry/exporter-metrics-otlp-grpc'),
    ]);
    // A fresh Metadata per exporter: the exporters merge into it.
    const metadata = () => {
      const value = new Metadata();
      for (const [name, header] of Object.entries(headers)) value.set(name.toLowerCase(), header);
      return value;
    };
    // The URL's scheme picks the channel: http:// plaintext, https:// TLS.
    return {
      spans: new OTLPTraceExporter({ url: base, metadata: metadata() }),
      metrics: new OTLPMetricExporter({ url: base, metadata: metadata() }),
    };
  }
  const [{ OTLPTraceExporter }, { OTLPMetricExporter }] =
    protocol === 'http/protobuf'
      ? await Promise.all([import('@opentelemetry/exporter-trace-otlp-proto'), import('@opentelemetry/exporter-metrics-otlp-proto')])
      : await Promise.all([import('@opentelemetry/exporter-trace-otlp-http'), import('@opentelemetry/exporter-metrics-otlp-http')]);
  return {
    spans: new OTLPTraceExporter({ url: `${base}/v1/traces`, headers }),
    metrics: new OTLPMetricExporter({ url: `${base}/v1/metrics`, headers }),
  };
}
