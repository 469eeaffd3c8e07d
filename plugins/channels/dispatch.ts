/**
 * The one place a channel message becomes a turn of its group: offered to
 * the group under an idempotency key made from the channel and message ids
 * (a message delivered again never runs twice), waiting while the group's
 * queue is full. It runs inside the group's `channel.turn` job (runner.ts),
 * on the worker that owns the group; the same key keys that job.
 */
import { createHash } from 'node:crypto';
import { ErrorCodes, XdogError } from '../../core/index.js';
import type { GroupRuntime, PromptReceipt, RunObserver } from '../claw-gateway/tokens.js';
import type { InboundMessage } from './contract.js';

/** How long to wait before offering a message again to a group whose queue is full. */
const GROUP_FULL_RETRY_MS = 500;

/** The idempotency key of a channel message: stable across deliveries and restarts. */
export function channelInputKey(channelId: string, messageId: string): string {
  return `channel:${channelId}:${createHash('sha256').update(messageId).digest('base64url')}`;
}

/** Starts the message's turn; undefined when `signal` (the channel stopping) came first. */
export async function dispatchToGroup(runtime: GroupRuntime, channelId: string, message: InboundMessage, observer: RunObserver, signal: AbortSignal): Promise<PromptReceipt | undefined> {
  const key = channelInputKey(channelId, message.id);
  for (;;) {
    if (signal.aborted) return undefined;
    try {
      return await runtime.prompt(message.text, [], key, undefined, observer, { via: 'channel', origin: channelId, ...(message.trace ? { parent: message.trace } : {}) });
    } catch (error) {
      if (!(error instanceof XdogError) || error.code !== ErrorCodes.LIMIT_EXCEEDED) throw error;
      // Not accepted, so offering it again cannot run it twice.
      await new Promise((resolve) => setTimeout(resolve, GROUP_FULL_RETRY_MS));
    }
  }
}
