/**
 * A group's run as a span: the parent of the agent's `invoke_agent`, joined
 * to the trace its input came with (a client's `_meta.traceparent`, a
 * webhook's `traceparent` header, carried across workers in the handoff's
 * params), and the group's queue depth as a gauge.
 */
import type { Telemetry, TraceCarrier } from '../../core/index.js';

/** How a run's input reached the group, for its span. */
export interface RunTrace {
  /** The remote parent, when the input brought one. */
  parent?: TraceCarrier;
  /** "client", "channel", "schedule", ... (`xdog.run.source`). */
  via: string;
  /** The channel or job it came from (a job by name). */
  origin?: string;
  /** The job's id, for a scheduled run (`xdog.schedule.id`). */
  originId?: string;
}

export interface TracedRunInfo {
  group: string;
  sessionId: string;
  inputId: string;
  trace: RunTrace;
}

/** Runs `run` (which returns the run's status) inside a `claw.run` span. */
export function traceGroupRun(telemetry: Telemetry, info: TracedRunInfo, run: () => Promise<string>): Promise<string> {
  const kind = info.trace.via === 'client' || info.trace.via === 'channel' ? 'server' : 'consumer';
  const attributes = {
    'xdog.group': info.group,
    'xdog.session.id': info.sessionId,
    'gen_ai.conversation.id': info.sessionId,
    'xdog.input.id': info.inputId,
    'xdog.run.source': info.trace.via,
    ...(info.trace.origin ? { [info.trace.via === 'channel' ? 'xdog.channel' : 'xdog.schedule']: info.trace.origin } : {}),
    ...(info.trace.via === 'schedule' && info.trace.originId ? { 'xdog.schedule.id': info.trace.originId } : {}),
  };
  return telemetry.inSpan(`claw.run ${info.group}`, { kind, attributes, ...(info.trace.parent ? { parent: info.trace.parent } : {}) }, async (span) => {
    const status = await run();
    span.setAttributes({ 'xdog.run.status': status });
    if (status === 'error') span.fail('run_error');
    return status;
  });
}

/** Reports the group's waiting inputs at each metric collection; returns a disposer. */
export function observeQueueDepth(telemetry: Telemetry, group: string, depth: () => number): () => void {
  return telemetry.metrics.observe('xdog.queue.depth', () => [{ value: depth(), attributes: { 'xdog.group': group } }]);
}
