/**
 * The Telemetry seam on the OpenTelemetry API: spans from a Tracer, metrics
 * from a Meter. Loaded only when telemetry is configured (this module
 * imports @opentelemetry/api at load).
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  createTraceState,
  trace,
  type Attributes,
  type Context,
  type Counter,
  type Histogram,
  type Meter,
  type ObservableGauge,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { SpanOptions, Telemetry, TelemetryAttributes, TelemetryMetrics, TelemetrySpan, TraceCarrier } from '../../core/telemetry.js';
import { environmentSecrets, redact } from '../../core/redact.js';
import { LIMITS, utf8Bytes } from '../../core/limits.js';
import { ErrorType } from './semconv.js';

export interface OtelTelemetryOptions {
  tracer: Tracer;
  meter?: Meter;
  captureContent?: boolean;
  /** Values to redact besides the credential shapes and secret-named environment variables (API keys from the config). */
  secrets?: readonly string[];
}

const KINDS = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT, server: SpanKind.SERVER, producer: SpanKind.PRODUCER, consumer: SpanKind.CONSUMER } as const;

/** Drops undefined values (the API refuses them). */
export function cleanAttributes(attributes: TelemetryAttributes | undefined): Attributes {
  const out: Attributes = {};
  if (attributes) for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value as Attributes[string];
  return out;
}

export function carrierOf(span: Span): TraceCarrier {
  const spanContext = span.spanContext();
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const carrier: TraceCarrier = { traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}` };
  const state = spanContext.traceState?.serialize();
  if (state) carrier.tracestate = state;
  return carrier;
}

/** A context whose parent is the remote span a (validated) carrier names. */
export function remoteContext(carrier: TraceCarrier): Context {
  const [, traceId, spanId, flags] = carrier.traceparent.split('-');
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: traceId!,
    spanId: spanId!,
    traceFlags: Number.parseInt(flags!, 16),
    isRemote: true,
    ...(carrier.tracestate ? { traceState: createTraceState(carrier.tracestate) } : {}),
  });
}

function handle(span: Span): TelemetrySpan {
  return {
    setAttributes: (attributes) => void span.setAttributes(cleanAttributes(attributes)),
    fail: (errorType, message) => {
      span.setAttribute(ErrorType, errorType);
      span.setStatus({ code: SpanStatusCode.ERROR, ...(message ? { message } : {}) });
    },
    carrier: () => carrierOf(span),
  };
}

/** Cuts text at the content limit, saying how much was left out (a recorded attribute, not the data itself). */
function bounded(text: string): string {
  const limit = LIMITS.telemetryContentBytes;
  if (utf8Bytes(text) <= limit) return text;
  const kept = Buffer.from(text, 'utf8').subarray(0, limit).toString('utf8').replace(/\uFFFD$/, '');
  return `${kept}… [${utf8Bytes(text) - utf8Bytes(kept)} more bytes not recorded]`;
}

export function createOtelTelemetry(options: OtelTelemetryOptions): Telemetry {
  const { tracer } = options;
  const captureContent = options.captureContent === true;
  const secrets = [...(options.secrets ?? []), ...environmentSecrets()].filter((secret) => secret.length >= 8);
  return {
    captureContent,
    async inSpan<T>(name: string, spanOptions: SpanOptions, work: (span: TelemetrySpan) => Promise<T>): Promise<T> {
      const parent = spanOptions.parent ? remoteContext(spanOptions.parent) : context.active();
      const span = tracer.startSpan(name, { kind: KINDS[spanOptions.kind ?? 'internal'], attributes: cleanAttributes(spanOptions.attributes) }, parent);
      try {
        return await context.with(trace.setSpan(parent, span), () => work(handle(span)));
      } catch (error) {
        if (span.isRecording()) {
          const type = error instanceof Error ? ((error as { code?: unknown }).code as string | undefined) ?? error.name : 'Error';
          span.setAttribute(ErrorType, String(type));
          span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message.slice(0, 500) : String(error).slice(0, 500) });
        }
        throw error;
      } finally {
        span.end();
      }
    },
    current() {
      const span = trace.getSpan(context.active());
      return span && span.spanContext().traceId !== '00000000000000000000000000000000' ? carrierOf(span) : undefined;
    },
    content(text: string) {
      return captureContent ? bounded(redact(text, secrets)) : undefined;
    },
    metrics: options.meter ? otelMetrics(options.meter) : NO_METRICS,
  };
}

const NO_METRICS: TelemetryMetrics = { add: () => undefined, record: () => undefined, observe: () => () => undefined };

/** Instruments made on first use, by name: a counter for `add`, a histogram for `record`, a gauge for `observe`. */
function otelMetrics(meter: Meter): TelemetryMetrics {
  const counters = new Map<string, Counter>();
  const histograms = new Map<string, Histogram>();
  const gauges = new Map<string, { gauge: ObservableGauge; readers: Set<() => Array<{ value: number; attributes?: TelemetryAttributes }>> }>();
  return {
    add(name, value, attributes) {
      let counter = counters.get(name);
      if (!counter) counters.set(name, (counter = meter.createCounter(name)));
      counter.add(value, cleanAttributes(attributes));
    },
    record(name, value, attributes) {
      let histogram = histograms.get(name);
      if (!histogram) histograms.set(name, (histogram = meter.createHistogram(name)));
      histogram.record(value, cleanAttributes(attributes));
    },
    observe(name, read) {
      let entry = gauges.get(name);
      if (!entry) {
        const readers = new Set<() => Array<{ value: number; attributes?: TelemetryAttributes }>>();
        const gauge = meter.createObservableGauge(name);
        gauge.addCallback((result) => {
          for (const reader of readers) {
            try {
              for (const point of reader()) result.observe(point.value, cleanAttributes(point.attributes));
            } catch {
              // A failing reader skips one collection; the others still report.
            }
          }
        });
        gauges.set(name, (entry = { gauge, readers }));
      }
      const readers = entry.readers;
      readers.add(read);
      return () => void readers.delete(read);
    },
  };
}
