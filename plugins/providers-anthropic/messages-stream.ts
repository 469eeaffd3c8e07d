/**
 * A `ModelStreamFn` over the Anthropic Messages streaming API, through the
 * official SDK with its own retries off (the shared policy is the only one).
 * Maps text, thinking (with signatures), tool use, cache usage and stop reasons.
 */
import type { MessageCreateParamsStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import type { AssistantStreamEvent, ModelContext, ModelInfo, ModelStreamFn, ModelStreamOptions, StopReason } from '../../core/index.js';
import { IncompleteStreamError, ProviderProtocolError, runProviderStream, trackedRequest, type MessageBuilder, type RetryPolicy } from '../providers-shared/index.js';
import { toAnthropicMessages, toAnthropicTools } from './convert.js';

export interface AnthropicConnection {
  baseURL: string;
  /** Absent for a configured endpoint that takes no key: then no credential is sent (not even one from the environment). */
  apiKey?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface AnthropicStreamOptions {
  provider: string;
  connect(signal: AbortSignal): Promise<AnthropicConnection>;
  /** The models the provider knows; absent for a configured endpoint that takes any model id. */
  models?(): ModelInfo[];
  authHint: string;
  policy?: RetryPolicy;
}

/** Thinking budgets per effort level, in tokens. */
export const THINKING_BUDGETS: Readonly<Record<string, number>> = Object.freeze({ low: 2048, medium: 8192, high: 24_576 });
const DEFAULT_MAX_TOKENS = 8192;

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'toolUse',
  refusal: 'error',
};

export function createMessagesStream(options: AnthropicStreamOptions): ModelStreamFn {
  const resolveModel = (id: string): ModelInfo | undefined => options.models?.().find((info) => info.id === id);
  const stream = (model: string, context: ModelContext, streamOptions: ModelStreamOptions): AsyncIterable<AssistantStreamEvent> => {
    const request = trackedRequest({ provider: options.provider, authHint: options.authHint, model, signal: streamOptions.signal, policy: options.policy });
    return runProviderStream(request.options, async function* (builder, signal) {
      const connection = await options.connect(signal);
      request.connected(connection);
      // The SDK is loaded on the first request, so a CLI start that never calls Anthropic does not pay for it.
      const { default: Anthropic } = await import('@anthropic-ai/sdk');
      const client = new Anthropic({
        // null, not undefined: the SDK would otherwise read ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN and send them to any endpoint.
        apiKey: connection.apiKey ?? null,
        authToken: null,
        baseURL: connection.baseURL,
        maxRetries: 0,
        timeout: connection.timeoutMs,
        defaultHeaders: connection.apiKey ? connection.headers : { ...connection.headers, 'x-api-key': null, authorization: null },
      });
      const budget = streamOptions.reasoning ? THINKING_BUDGETS[streamOptions.reasoning] : undefined;
      if (streamOptions.reasoning && budget === undefined) {
        throw new ProviderProtocolError(`unknown thinking level "${streamOptions.reasoning}"; use one of ${Object.keys(THINKING_BUDGETS).join(', ')}`);
      }
      const ceiling = streamOptions.maxOutputTokens ?? resolveModel(model)?.maxOutputTokens ?? DEFAULT_MAX_TOKENS;
      const params: MessageCreateParamsStreaming = {
        model,
        max_tokens: budget ? Math.max(ceiling, budget + 1024) : ceiling,
        messages: toAnthropicMessages(context.messages),
        stream: true,
      };
      if (context.systemPrompt) params.system = context.systemPrompt;
      if (context.tools.length) params.tools = toAnthropicTools(context.tools);
      if (budget) params.thinking = { type: 'enabled', budget_tokens: budget };
      const events = await client.messages.create(params, { signal });
      let stopped = false;
      for await (const event of events) {
        yield mapEvent(builder, event, options.provider);
        if (event.type === 'message_stop') stopped = true;
      }
      if (!stopped) throw new IncompleteStreamError('the response stream ended before message_stop');
    });
  };
  return Object.assign(stream, { ...(options.models && { models: options.models }), resolveModel });
}

function mapEvent(builder: MessageBuilder, event: RawMessageStreamEvent, provider: string): AssistantStreamEvent | undefined {
  switch (event.type) {
    case 'message_start': {
      const usage = event.message.usage;
      builder.usage({ input: usage.input_tokens, output: usage.output_tokens, cacheRead: usage.cache_read_input_tokens ?? 0, cacheWrite: usage.cache_creation_input_tokens ?? 0 });
      return undefined;
    }
    case 'content_block_start': {
      const block = event.content_block;
      if (block.type === 'tool_use') return builder.toolCall(event.index, { id: block.id, name: block.name });
      if (block.type === 'text' && block.text) return builder.text(block.text);
      if (block.type === 'thinking' && block.thinking) return builder.thinking(block.thinking);
      if (block.type === 'redacted_thinking') builder.redactedThinking(block.data);
      return undefined;
    }
    case 'content_block_delta': {
      const delta = event.delta;
      if (delta.type === 'text_delta') return builder.text(delta.text);
      if (delta.type === 'thinking_delta') return builder.thinking(delta.thinking);
      if (delta.type === 'signature_delta') builder.thinkingSignature(delta.signature);
      if (delta.type === 'input_json_delta') return builder.toolCall(event.index, { arguments: delta.partial_json });
      return undefined;
    }
    case 'message_delta': {
      const usage = event.usage;
      builder.usage({ output: usage.output_tokens, ...(usage.input_tokens != null ? { input: usage.input_tokens } : {}) });
      if (event.delta.stop_reason) {
        builder.stop(STOP_REASONS[event.delta.stop_reason] ?? 'stop');
        if (event.delta.stop_reason === 'refusal') builder.message.errorMessage = `${provider}: the model refused to answer`;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}
