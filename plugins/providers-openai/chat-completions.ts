/**
 * A `ModelStreamFn` over the OpenAI Chat Completions streaming API, through
 * the official `openai` SDK with its own retries off (the shared policy is the
 * only one). With another base URL it serves any OpenAI-compatible server
 * (Ollama, vLLM, llama.cpp, OpenRouter) and GitHub Copilot.
 */
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { AssistantStreamEvent, ModelContext, ModelInfo, ModelStreamFn, ModelStreamOptions, StopReason } from '../../core/index.js';
import { IncompleteStreamError, runProviderStream, trackedRequest, type MessageBuilder, type RetryPolicy } from '../providers-shared/index.js';
import { toChatMessages, toChatTools } from './convert.js';

/** Where and how one request connects; resolved per request so logins and token refreshes apply. */
export interface ChatConnection {
  baseURL: string;
  /** Undefined for keyless local servers: no Authorization header is sent. */
  apiKey?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface ChatCompletionsOptions {
  /** Provider id, for messages. */
  provider: string;
  /** Resolves the connection; may throw (e.g. an `AuthError` with `status: 401`). */
  connect(signal: AbortSignal): Promise<ChatConnection>;
  /** Known models (undefined: the provider lists none and accepts any id). */
  models?(): ModelInfo[];
  /** What to do about a 401/403. */
  authHint: string;
  /** Values to redact from messages besides the API key. */
  secrets?(): string[];
  policy?: RetryPolicy;
}

const FINISH_REASONS: Record<string, StopReason> = { stop: 'stop', length: 'length', tool_calls: 'toolUse', function_call: 'toolUse', content_filter: 'error' };

/** Non-standard reasoning fields that OpenAI-compatible servers stream. */
type ReasoningDelta = { reasoning_content?: string | null; reasoning?: string | null };

export function createChatCompletionsStream(options: ChatCompletionsOptions): ModelStreamFn {
  const stream = (model: string, context: ModelContext, streamOptions: ModelStreamOptions): AsyncIterable<AssistantStreamEvent> => {
    const request = trackedRequest(
      { provider: options.provider, authHint: options.authHint, model, signal: streamOptions.signal, policy: options.policy },
      options.secrets?.(),
    );
    return runProviderStream(request.options, async function* (builder, signal) {
      const connection = await options.connect(signal);
      request.connected(connection);
      // The SDK is loaded on the first request, so a CLI start that never calls OpenAI does not pay for it.
      const { default: OpenAI } = await import('openai');
      const client = new OpenAI({
        apiKey: connection.apiKey ?? 'unused',
        baseURL: connection.baseURL,
        organization: null,
        project: null,
        maxRetries: 0,
        timeout: connection.timeoutMs,
        defaultHeaders: { ...connection.headers, ...(connection.apiKey ? {} : { Authorization: null }) },
      });
      const params: ChatCompletionCreateParamsStreaming = {
        model,
        messages: toChatMessages(context),
        stream: true,
        stream_options: { include_usage: true },
      };
      if (context.tools.length) params.tools = toChatTools(context.tools);
      if (streamOptions.maxOutputTokens) params.max_completion_tokens = streamOptions.maxOutputTokens;
      if (streamOptions.reasoning) params.reasoning_effort = streamOptions.reasoning as ChatCompletionCreateParamsStreaming['reasoning_effort'];
      const chunks = await client.chat.completions.create(params, { signal });
      let finished = false;
      for await (const chunk of chunks) {
        yield* mapChunk(builder, chunk, options.provider);
        if (chunk.choices?.some((choice) => choice.finish_reason)) finished = true;
      }
      if (!finished) throw new IncompleteStreamError('the response stream ended before the model finished');
    });
  };
  return Object.assign(stream, {
    models: options.models,
    resolveModel: options.models ? (id: string) => options.models!().find((info) => info.id === id) : undefined,
  });
}

function* mapChunk(builder: MessageBuilder, chunk: ChatCompletionChunk, provider: string): Iterable<AssistantStreamEvent | undefined> {
  if (chunk.usage) {
    const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
    builder.usage({ input: Math.max(0, chunk.usage.prompt_tokens - cached), output: chunk.usage.completion_tokens, cacheRead: cached });
  }
  const choice = chunk.choices?.[0];
  if (!choice) return;
  const delta = choice.delta ?? {};
  const reasoning = (delta as ReasoningDelta).reasoning_content ?? (delta as ReasoningDelta).reasoning;
  if (reasoning) yield builder.thinking(reasoning);
  if (delta.content) yield builder.text(delta.content);
  for (const call of delta.tool_calls ?? []) {
    yield builder.toolCall(call.index, { id: call.id, name: call.function?.name, arguments: call.function?.arguments });
  }
  if (choice.finish_reason) {
    const reason = FINISH_REASONS[choice.finish_reason] ?? 'stop';
    builder.stop(reason);
    if (choice.finish_reason === 'content_filter') builder.message.errorMessage = `${provider}: the response was stopped by the content filter`;
  }
}
