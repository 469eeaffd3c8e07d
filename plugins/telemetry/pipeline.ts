/**
 * The OpenTelemetry SDK pipeline a `telemetry:` config section asks for:
 * tracer and meter providers, their exporters, the context manager, process
 * metrics and the loopback Prometheus endpoint. Loaded by dynamic import only.
 *
 * One pipeline per process and configuration, shared by reference count: a
 * gateway builds one kernel per group, and each must not start its own
 * exporters (or bind the Prometheus port twice). The last kernel to close it
 * flushes and shuts it down.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { context, metrics as metricsApi, propagation, trace, type Meter, type Tracer } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type MetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { ErrorCodes, XdogError, describeError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import type { TelemetryConfig } from '../../core/config.js';
import { observeStoreTransactions, type Telemetry } from '../../core/telemetry.js';
import { activeScope, cleanAttributes, createOtelTelemetry } from './otel-telemetry.js';
import { defaultEndpoint, otlpExporters, type OtlpExporters } from './otlp-exporters.js';
import { Metric, Xdog } from './semconv.js';

export interface Pipeline {
  telemetry: Telemetry;
  /** The bound Prometheus port, when one was asked for. */
  prometheusPort?: number;
  release(): Promise<void>;
}

interface Shared {
  users: number;
  built: Promise<Built>;
}

interface Built {
  telemetry: Telemetry;
  prometheusPort?: number;
  shutdown(): Promise<void>;
}

const pipelines = new Map<string, Shared>();

/** The pipeline for `config` (built on first use); call `release()` once when done. */
export async function acquirePipeline(config: TelemetryConfig, secrets: readonly string[] = []): Promise<Pipeline> {
  const key = JSON.stringify(config);
  let shared = pipelines.get(key);
  if (!shared) {
    shared = { users: 0, built: build(config, secrets) };
    pipelines.set(key, shared);
    shared.built.catch(() => pipelines.delete(key));
  }
  shared.users++;
  let built: Built;
  try {
    built = await shared.built;
  } catch (error) {
    shared.users--;
    throw error;
  }
  let released = false;
  const entry = shared;
  return {
    telemetry: built.telemetry,
    ...(built.prometheusPort === undefined ? {} : { prometheusPort: built.prometheusPort }),
    async release() {
      if (released) return;
      released = true;
      if (--entry.users > 0) return;
      pipelines.delete(key);
      await built.shutdown();
    },
  };
}

function headersOf(config: TelemetryConfig): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, envName] of Object.entries(config.headers_env ?? {})) {
    const value = process.env[envName];
    if (value === undefined || value === '') {
      throw new XdogError(ErrorCodes.CONFIG_INVALID, `telemetry.headers_env.${name} names ${envName}, which is not set`, { hint: `export ${envName}=... before starting, or remove the header` });
    }
    headers[name] = value;
  }
  return headers;
}

async function build(config: TelemetryConfig, secrets: readonly string[]): Promise<Built> {
  const headers = headersOf(config);
  const interval = config.export_interval_ms ?? 2000;
  const protocol = config.protocol ?? 'http/json';
  const base = (config.endpoint ?? defaultEndpoint(protocol)).replace(/\/+$/, '');
  const resource = resourceFromAttributes({ 'service.name': config.service_name ?? 'xdog', 'process.pid': process.pid });

  const otlp: OtlpExporters | undefined = config.exporter === 'otlp' ? await otlpExporters(protocol, base, headers) : undefined;
  const processor: SpanProcessor = otlp ? new BatchSpanProcessor(otlp.spans, { scheduledDelayMillis: interval }) : new SimpleSpanProcessor(new ConsoleSpanExporter());
  const tracerProvider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  // Spans nest through async work (a tool's MCP request, a child agent) only with the async context manager register() sets.
  tracerProvider.register();

  const readers: MetricReader[] = [];
  if (otlp) readers.push(new PeriodicExportingMetricReader({ exporter: otlp.metrics, exportIntervalMillis: Math.max(interval, 1000) }));
  let prometheusPort: number | undefined;
  if (config.prometheus) {
    const { PrometheusExporter } = await import('@opentelemetry/exporter-prometheus');
    const exporter = new PrometheusExporter({ host: '127.0.0.1', port: config.prometheus.port, preventServerStart: true });
    try {
      await exporter.startServer();
    } catch (error) {
      await tracerProvider.shutdown().catch(() => undefined);
      unregister();
      throw new XdogError(ErrorCodes.UNAVAILABLE, `telemetry.prometheus could not listen on 127.0.0.1:${config.prometheus.port}: ${describeError(error)}`, {
        hint: 'choose a free port, or stop the process that holds it',
      });
    }
    prometheusPort = config.prometheus.port;
    readers.push(exporter as unknown as MetricReader); // it is built on its own copy of sdk-metrics (2.12.0), same shape
  }
  const meterProvider = readers.length ? new MeterProvider({ resource, readers }) : undefined;
  const tracer: Tracer = tracerProvider.getTracer('xdog');
  const meter: Meter = meterProvider ? meterProvider.getMeter('xdog') : metricsApi.getMeter('xdog');
  const stopProcessMetrics = meterProvider ? processMetrics(meter) : () => undefined;
  const telemetry = createOtelTelemetry({ tracer, ...(meterProvider ? { meter } : {}), captureContent: config.capture_content === true, secrets });

  return {
    telemetry,
    ...(prometheusPort === undefined ? {} : { prometheusPort }),
    async shutdown() {
      stopProcessMetrics();
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, LIMITS.telemetryFlushMs).unref());
      // A collector that is down must not hold the process: flush within the deadline, then let go.
      await Promise.race([Promise.allSettled([tracerProvider.shutdown(), meterProvider?.shutdown()]), deadline]);
      unregister();
    },
  };
}

function unregister(): void {
  trace.disable();
  context.disable();
  propagation.disable();
}

/** Event-loop delay p99, RSS and heap (observed at each collection), and the store's transaction times. */
function processMetrics(meter: Meter): () => void {
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  const p99 = meter.createObservableGauge(Metric.eventLoopDelayP99, { unit: 's' });
  const rss = meter.createObservableGauge(Metric.rss, { unit: 'By' });
  const heap = meter.createObservableGauge(Metric.heapUsed, { unit: 'By' });
  const onDelay = (result: { observe(value: number): void }) => {
    result.observe(delay.percentile(99) / 1e9);
    delay.reset();
  };
  const onRss = (result: { observe(value: number): void }) => result.observe(process.memoryUsage.rss());
  const onHeap = (result: { observe(value: number): void }) => result.observe(process.memoryUsage().heapUsed);
  p99.addCallback(onDelay);
  rss.addCallback(onRss);
  heap.addCallback(onHeap);
  const transactions = meter.createHistogram(Metric.storeTransaction, { unit: 's' });
  // Per group where the transaction ran inside a group's span (its run, MCP call, ...): the scope is read from the caller's context.
  const stopTransactions = observeStoreTransactions((seconds, info) =>
    transactions.record(seconds, cleanAttributes({ [Xdog.group]: activeScope()[Xdog.group], 'db.system.name': info.system, 'xdog.outcome': info.ok ? 'ok' : 'error' })),
  );
  return () => {
    stopTransactions();
    delay.disable();
    p99.removeCallback(onDelay);
    rss.removeCallback(onRss);
    heap.removeCallback(onHeap);
  };
}
