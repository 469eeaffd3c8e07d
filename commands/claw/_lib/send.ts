/**
 * `xdog claw send`: one prompt to a group, its run streamed back. The
 * subscription is made before the prompt is sent, so no event of the run is
 * missed; a prompt whose receipt is lost is never sent again (the user is
 * told how to check instead).
 *
 * Which run is ours: the receipt's `inputId`, which the gateway puts on every
 * event and the `run.end` of that prompt's run.
 */
import crypto from 'node:crypto';
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import { parseTraceCarrier, type TraceCarrier } from '../../../core/telemetry.js';
import { terminalSafe } from '../../../core/terminal-text.js';
import type { AgentEvent, ImageContent } from '../../../core/index.js';
import type { GatewayConnection, WireEvent } from '../../../plugins/claw-gateway/index.js';
import { prepareImages } from '../../../plugins/claw-gateway/upload-client.js';
import type { PromptReceipt } from '../../../plugins/claw-gateway/protocol.js';
import { Notifications } from '../../../plugins/claw-gateway/protocol-names.js';
import { EventRenderer, type Output } from '../../agent/_lib/render.js';

export interface SendOptions {
  group?: string;
  /** Send only if this is still the active session (else STALE). */
  sessionId?: string;
  text: string;
  /** Images for the prompt (sent as chunked uploads when over one chunk). */
  images?: ImageContent[];
  json: boolean;
  output: Output;
  /** Aborts our run (or takes our prompt out of the queue) when it fires. */
  interrupt?: AbortSignal;
}

export interface SendResult {
  receipt: PromptReceipt;
  /** completed, error or aborted (as the gateway's run.end says); `duplicate` when the gateway had the key already. */
  status: string;
  errorMessage?: string;
  /** The error code the run failed on (run.end's errorCode), with its hint. */
  errorCode?: string;
  errorHint?: string;
}

type RunEnd = { status: string; errorMessage?: string; errorCode?: string; errorHint?: string };
type Notice = { kind: 'event'; inputId?: string; event: WireEvent } | ({ kind: 'end'; inputId?: string } & RunEnd);

/** Errors of the transport (not answers of the gateway): the prompt may or may not have been admitted. */
const UNCERTAIN: readonly string[] = [ErrorCodes.UNAVAILABLE, ErrorCodes.CLOSED];

export async function sendPrompt(gateway: GatewayConnection, options: SendOptions): Promise<SendResult> {
  const renderer = new EventRenderer(options.output, options.json, { toolLinePerCall: true });
  const notices: Notice[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  const push = (notice: Notice): void => {
    notices.push(notice);
    wake?.();
  };
  const disposers = [
    gateway.on(Notifications.event, (params) => push({ kind: 'event', ...params })),
    gateway.on(Notifications.runEnd, (params) => push({ kind: 'end', ...params })),
    // A notice for the group (an extension quarantined, and why) is shown as it comes, as the chat shows it.
    gateway.on(Notifications.notice, (params) => {
      const message = String((params as { message?: unknown }).message ?? '');
      if (options.json) options.output.stdout(`${JSON.stringify({ type: 'notice', ...params })}\n`);
      else options.output.stderr(`xdog: notice: ${terminalSafe(message)}\n`);
    }),
    gateway.onClose(() => {
      closed = true;
      wake?.();
    }),
  ];
  // One listener for the whole send (a listener per wait would pile up on a long run).
  const onInterrupt = (): void => wake?.();
  options.interrupt?.addEventListener('abort', onInterrupt, { once: true });
  disposers.push(() => options.interrupt?.removeEventListener('abort', onInterrupt));
  try {
    await gateway.call('subscribe', { group: options.group, sessionId: options.sessionId });
    const receipt = await sendOnce(gateway, options);
    if (options.json) options.output.stdout(`${JSON.stringify({ type: 'receipt', ...receipt })}\n`);
    if (receipt.status === 'duplicate') return { receipt, status: 'duplicate' };
    if (receipt.status === 'queued') options.output.stderr(`[queued] the group ${receipt.group} is busy; the prompt waits in its queue (${receipt.inputId ?? 'no id'}) and runs after the current turn\n`);

    const follower = new RunFollower(receipt.inputId!);
    let interruptSent = false;
    for (;;) {
      for (const notice of notices.splice(0)) follower.add(notice);
      // Wire events are agent events cut down (docs/protocol.md); the renderer reads only what they keep.
      // --json prints them as the gateway sent them (message_update is already a bare delta there).
      for (const event of follower.take()) {
        if (options.json) options.output.stdout(`${JSON.stringify(event)}\n`);
        else renderer.event(event as AgentEvent);
      }
      if (follower.end) {
        const { status, ...failure } = follower.end;
        if (options.json) options.output.stdout(`${JSON.stringify({ type: 'run_end', group: receipt.group, sessionId: receipt.sessionId, status, ...failure })}\n`);
        return { receipt, status, ...failure };
      }
      if (closed) {
        throw new XdogError(ErrorCodes.UNAVAILABLE, 'the connection to the gateway closed before the run ended; the run may still be going on', {
          hint: 'see where it stands with xdog claw status and xdog claw sessions show',
        });
      }
      if (options.interrupt?.aborted && !interruptSent) {
        interruptSent = true;
        await interrupt(gateway, receipt, follower.ours, options.output);
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (notices.length > 0 || closed || (options.interrupt?.aborted && !interruptSent)) resolve();
      });
      wake = undefined;
    }
  } finally {
    for (const dispose of disposers) dispose();
  }
}

/** The shell's trace context (TRACEPARENT, TRACESTATE) for a gateway that takes one, so the run joins the caller's trace. */
function traceMeta(gateway: GatewayConnection): { _meta?: TraceCarrier } {
  if (!gateway.hello.capabilities.includes('trace-context:1')) return {};
  const carrier = parseTraceCarrier({ traceparent: process.env.TRACEPARENT, tracestate: process.env.TRACESTATE });
  return carrier ? { _meta: carrier } : {};
}

/** Sends the prompt once, with a fresh idempotency key; a lost receipt is reported, never retried. */
async function sendOnce(gateway: GatewayConnection, options: SendOptions): Promise<PromptReceipt> {
  // Uploads go before the prompt: a failed upload sends no prompt at all.
  const images = await prepareImages(gateway, options.images ?? []);
  try {
    return (await gateway.call('prompt', {
      group: options.group,
      text: options.text,
      ...(images.length ? { images } : {}),
      idempotencyKey: crypto.randomUUID(),
      expectedSessionId: options.sessionId,
      ...traceMeta(gateway),
    })) as PromptReceipt;
  } catch (error) {
    if (XdogError.is(error) && !UNCERTAIN.includes(error.code)) throw error;
    throw new XdogError(ErrorCodes.UNAVAILABLE, `the connection to the gateway was lost before it answered; the prompt may or may not have run (${(error as Error).message})`, {
      hint: 'it was not sent again; check with xdog claw sessions show before sending it again',
    });
  }
}

/** Ctrl+C: abort our running turn, or take our prompt out of the queue while it still waits. */
async function interrupt(gateway: GatewayConnection, receipt: PromptReceipt, running: boolean, output: Output): Promise<void> {
  if (!running && receipt.inputId) {
    // Refused when it has already left the queue: then it runs (or is about to), so that run is aborted instead.
    const removed = await gateway.call('queue.remove', { group: receipt.group, id: receipt.inputId }).then(
      () => true,
      () => false,
    );
    if (removed) throw new XdogError(ErrorCodes.ABORTED, 'the prompt was taken out of the queue before it ran');
  }
  output.stderr('(aborting the run)\n');
  await gateway.call('abort', { group: receipt.group });
}

/** The fields of a run.end a client reports (the status, and the error it failed on). */
function runEndOf(notice: RunEnd): RunEnd {
  const end: RunEnd = { status: notice.status };
  for (const field of ['errorMessage', 'errorCode', 'errorHint'] as const) if (typeof notice[field] === 'string' && notice[field]) end[field] = notice[field];
  return end;
}

/** Picks the events of our run (by the prompt's input id) out of the group's notifications. */
class RunFollower {
  /** True once our run has started. */
  ours = false;
  end: RunEnd | undefined;
  #ready: WireEvent[] = [];

  constructor(private readonly inputId: string) {}

  add(notice: Notice): void {
    if (notice.inputId !== this.inputId || this.end) return;
    this.ours = true;
    if (notice.kind === 'end') this.end = runEndOf(notice);
    else this.#ready.push(notice.event);
  }

  /** Our events that arrived since the last call. */
  take(): WireEvent[] {
    return this.#ready.splice(0);
  }
}
