/**
 * The telemetry seam: what the gateway, MCP, children and extensions use to
 * open spans and count, without importing OpenTelemetry. The telemetry
 * plugin fills it (lazily loading the SDK) only when `telemetry:` is
 * configured or a host passes its own provider; until then `telemetryOf()`
 * is undefined and callers skip all work.
 */
import type { Kernel } from './kernel.js';
import { token } from './tokens.js';

/** Attribute values a span or a metric point may carry. */
export type TelemetryValue = string | number | boolean | readonly string[];
export type TelemetryAttributes = Record<string, TelemetryValue | undefined>;

/** W3C trace context, as carried in `_meta` of the gateway protocol and MCP, and in webhook headers. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/** A span while its work runs. */
export interface TelemetrySpan {
  setAttributes(attributes: TelemetryAttributes): void;
  /** Marks the span failed (status ERROR, `error.type`); the work's own error handling is unchanged. */
  fail(errorType: string, message?: string): void;
  /** This span's context, to hand to another process. */
  carrier(): TraceCarrier;
}

export type SpanKind = 'internal' | 'client' | 'server' | 'producer' | 'consumer';

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: TelemetryAttributes;
  /** A remote parent (from a client or another worker); default: the span active where `inSpan` is called. */
  parent?: TraceCarrier;
}

/** Counters, histograms and gauges under stable names (see plugins/telemetry/metrics.ts). */
export interface TelemetryMetrics {
  add(name: string, value: number, attributes?: TelemetryAttributes): void;
  record(name: string, value: number, attributes?: TelemetryAttributes): void;
  /** Reports `read()` at each collection (a queue depth); returns a disposer. */
  observe(name: string, read: () => Array<{ value: number; attributes?: TelemetryAttributes }>): () => void;
}

export interface Telemetry {
  /** Whether message contents may be recorded (`telemetry.capture_content`). */
  readonly captureContent: boolean;
  /**
   * Runs `work` inside a new span (the active one inside it), ending it when
   * `work` settles; a throw marks it failed and is rethrown unchanged.
   */
  inSpan<T>(name: string, options: SpanOptions, work: (span: TelemetrySpan) => Promise<T>): Promise<T>;
  /** The active span's context, when there is one. */
  current(): TraceCarrier | undefined;
  /** A bounded, credential-redacted copy of `text` when contents are captured, else undefined. */
  content(text: string): string | undefined;
  readonly metrics: TelemetryMetrics;
}

/** Where a kernel's telemetry lives once its plugin opened (a holder: opening happens after binding). */
export interface TelemetryHolder {
  current?: Telemetry;
  /** Set by a host that brought its own providers: the config's pipeline is then not built. */
  hostProvided?: boolean;
}

export const TelemetryHolderToken = token<TelemetryHolder>('TelemetryHolder');

/** The kernel's telemetry, or undefined when none is configured (then do nothing). */
export function telemetryOf(kernel: Pick<Kernel, 'isBound' | 'get'>): Telemetry | undefined {
  return kernel.isBound(TelemetryHolderToken) ? kernel.get(TelemetryHolderToken).current : undefined;
}

/**
 * `events` re-yielded inside one span that lasts from the first pull to the
 * end of the stream (done, thrown, or left early by its consumer): for work
 * that streams, which `inSpan`'s promise cannot hold. The span's parent is
 * the span active at the first pull (a model call's chat span).
 */
export async function* inSpanStream<T>(telemetry: Telemetry, name: string, options: SpanOptions, events: AsyncIterable<T>): AsyncGenerator<T> {
  let settle!: (failure?: { error: unknown }) => void;
  const ended = new Promise<void>((resolve, reject) => (settle = (failure) => (failure ? reject(failure.error) : resolve())));
  const span = telemetry.inSpan(name, options, () => ended);
  try {
    for await (const event of events) yield event;
    settle();
  } catch (error) {
    settle({ error });
    throw error;
  } finally {
    settle();
    // The span records the failure; the error reaches the consumer above, not twice.
    await span.catch(() => undefined);
  }
}

const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
const TRACESTATE = /^[\x20-\x7e]{0,512}$/;

/**
 * A trace context taken from an untrusted peer (a client's `_meta`, a webhook
 * header, TRACEPARENT), or undefined when it is absent or malformed: a bad
 * traceparent starts a new trace, as the W3C spec asks, and never fails the call.
 */
export function parseTraceCarrier(value: unknown): TraceCarrier | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { traceparent, tracestate } = value as Record<string, unknown>;
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent.trim().toLowerCase())) return undefined;
  const carrier: TraceCarrier = { traceparent: traceparent.trim().toLowerCase() };
  if (typeof tracestate === 'string' && TRACESTATE.test(tracestate)) carrier.tracestate = tracestate;
  return carrier;
}

/** A store transaction's duration (s), from the call until it committed or failed: waits for the write lock and re-runs included. */
export type StoreTransactionListener = (seconds: number, info: { system: 'sqlite' | 'postgresql'; ok: boolean }) => void;

/** Who times store transactions (the telemetry pipeline); with nobody listening nothing is timed. */
const storeTransactionListeners = new Set<StoreTransactionListener>();

/** Reports every store transaction of this process to `listener` until the returned disposer runs. */
export function observeStoreTransactions(listener: StoreTransactionListener): () => void {
  storeTransactionListeners.add(listener);
  return () => void storeTransactionListeners.delete(listener);
}

/** Runs a store's transaction, timed for the listeners when there are any. */
export function timedStoreTransaction<T>(system: 'sqlite' | 'postgresql', run: () => Promise<T>): Promise<T> {
  if (storeTransactionListeners.size === 0) return run();
  const started = performance.now();
  const report = (ok: boolean) => {
    for (const listener of storeTransactionListeners) listener((performance.now() - started) / 1000, { system, ok });
  };
  return run().then(
    (result) => {
      report(true);
      return result;
    },
    (error: unknown) => {
      report(false);
      throw error;
    },
  );
}
