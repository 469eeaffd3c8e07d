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
  createContextKey,
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

/** `base` (default: an empty context) with the remote span a (validated) carrier names as the parent. */
export function remoteContext(carrier: TraceCarrier, base: Context = ROOT_CONTEXT): Context {
  const [, traceId, spanId, flags] = carrier.traceparent.split('-');
  return trace.setSpanContext(base, {
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
      // A remote parent replaces the active span, not the rest of the context (a group's scope).
      const parent = spanOptions.parent ? remoteContext(spanOptions.parent, context.active()) : context.active();
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

/** Where a scoped telemetry keeps its attributes in the context, for work only the context reaches (a store transaction). */
const SCOPE = createContextKey('xdog.telemetry.scope');

/** The attributes of the innermost scoped span the active context runs in (a claw group's), or none. */
export function activeScope(): TelemetryAttributes {
  return (context.active().getValue(SCOPE) as TelemetryAttributes | undefined) ?? {};
}

/**
 * `telemetry` with `attributes` (a claw group) on every span and metric
 * point it makes, and in the context of the work inside its spans: a group
 * kernel's MCP requests, extension callbacks and runs carry the group, and so
 * does the timing of a store transaction run inside them.
 */
export function scopedTelemetry(telemetry: Telemetry, attributes: TelemetryAttributes): Telemetry {
  const merged = (more: TelemetryAttributes | undefined): TelemetryAttributes => ({ ...attributes, ...more });
  return {
    captureContent: telemetry.captureContent,
    inSpan: (name, options, work) => context.with(context.active().setValue(SCOPE, attributes), () => telemetry.inSpan(name, { ...options, attributes: merged(options.attributes) }, work)),
    current: () => telemetry.current(),
    content: (text) => telemetry.content(text),
    metrics: {
      add: (name, value, more) => telemetry.metrics.add(name, value, merged(more)),
      record: (name, value, more) => telemetry.metrics.record(name, value, merged(more)),
      observe: (name, read) => telemetry.metrics.observe(name, () => read().map((point) => ({ value: point.value, attributes: merged(point.attributes) }))),
    },
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
