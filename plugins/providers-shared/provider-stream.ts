/**
 * The skeleton every provider's `ModelStreamFn` runs: announce the message,
 * run one vendor request (an attempt), retry it under the shared policy while
 * nothing was streamed, and end with exactly one `done` or `error` event.
 * It never throws (the ModelStreamFn contract).
 */
import type { AssistantStreamEvent } from '../../core/index.js';
import { classifyFailure, type FailureContext } from './failures.js';
import { MessageBuilder } from './message-builder.js';
import { DEFAULT_RETRY_POLICY, backoffDelay, sleep, type RetryPolicy } from './retry.js';

/** One vendor request: streams deltas into `builder`, yields the events they produce, sets the stop reason. */
export type ProviderAttempt = (builder: MessageBuilder, signal: AbortSignal) => AsyncIterable<AssistantStreamEvent | undefined>;

export interface ProviderStreamOptions extends FailureContext {
  /** The model as the agent named it (kept on the message). */
  model: string;
  signal?: AbortSignal;
  policy?: RetryPolicy;
}

/**
 * The options of one request whose endpoint and key become known only once an
 * attempt has connected; `connected()` records them so failure messages name
 * the endpoint and redact the key.
 */
export function trackedRequest(base: Omit<ProviderStreamOptions, 'endpoint' | 'secrets'>, knownSecrets: readonly string[] = []) {
  let endpoint = '(not connected)';
  let secrets = [...knownSecrets];
  const options: ProviderStreamOptions = {
    ...base,
    get endpoint() {
      return endpoint;
    },
    get secrets() {
      return secrets;
    },
  };
  return {
    options,
    connected(connection: { baseURL: string; apiKey?: string }): void {
      endpoint = connection.baseURL;
      if (connection.apiKey) secrets = [...secrets, connection.apiKey];
    },
  };
}

export async function* runProviderStream(options: ProviderStreamOptions, attempt: ProviderAttempt): AsyncIterable<AssistantStreamEvent> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  let builder = new MessageBuilder(options.model);
  yield { type: 'start', partial: builder.snapshot() };
  for (let retry = 0; ; retry++) {
    // One controller per attempt, so the SDK request stops with the caller's abort.
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const event of attempt(builder, controller.signal)) if (event) yield event;
      yield* builder.finishToolCalls();
      const message = builder.snapshot();
      yield message.stopReason === 'error' ? { type: 'error', message } : { type: 'done', message };
      return;
    } catch (thrown) {
      const failure = classifyFailure(thrown, options, options.signal);
      const retryable = failure.retryable && !builder.outputStarted && retry < policy.attempts;
      const tooLong = failure.retryAfterMs !== undefined && failure.retryAfterMs > policy.maxDelayMs;
      if (retryable && !tooLong) {
        const delayMs = backoffDelay(retry + 1, policy, failure.retryAfterMs);
        yield { type: 'retry', attempt: retry + 1, delayMs, reason: failure.message };
        try {
          await sleep(delayMs, options.signal);
        } catch {
          yield final(builder, 'aborted', `${options.provider}: request aborted while waiting to retry`);
          return;
        }
        builder = new MessageBuilder(options.model);
        continue;
      }
      let message = failure.message;
      if (failure.retryable && builder.outputStarted) message += ' (not retried: output had already been streamed)';
      else if (tooLong) message += ` (not retried: the server asked to wait ${Math.ceil(failure.retryAfterMs! / 1000)}s, over the ${policy.maxDelayMs / 1000}s limit)`;
      else if (failure.retryable) message += ` (gave up after ${retry} retries)`;
      yield final(builder, failure.kind === 'aborted' ? 'aborted' : 'error', message);
      return;
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
  }
}

function final(builder: MessageBuilder, stopReason: 'error' | 'aborted', errorMessage: string): AssistantStreamEvent {
  const message = builder.snapshot();
  // A tool call cut off before its id and name arrived is not a call; the rest stay (a failed message's calls never run).
  message.content = message.content.filter((part) => part.type !== 'toolCall' || (part.id !== '' && part.name !== ''));
  return { type: 'error', message: { ...message, stopReason, errorMessage } };
}
