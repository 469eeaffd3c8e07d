/**
 * A `ModelStreamFn` over Gemini's `streamGenerateContent`, through the
 * official `@google/genai` SDK with its own retries off (the shared policy is
 * the only one). The SDK is imported on the first request, so starting the
 * CLI does not load it. Maps text, thoughts (with signatures), function calls,
 * usage and finish reasons.
 */
import type { GenerateContentConfig, GenerateContentResponse } from '@google/genai';
import type { AssistantStreamEvent, ModelContext, ModelInfo, ModelStreamFn, ModelStreamOptions, StopReason } from '../../core/index.js';
import { IncompleteStreamError, ProviderProtocolError, runProviderStream, trackedRequest, type MessageBuilder, type RetryPolicy } from '../providers-shared/index.js';
import { toGeminiContents, toGeminiTools } from './convert.js';

export interface GeminiConnection {
  baseURL: string;
  /** Always set by the google provider (its connector requires a key). */
  apiKey?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface GeminiStreamOptions {
  provider: string;
  connect(signal: AbortSignal): Promise<GeminiConnection>;
  models?(): ModelInfo[];
  authHint: string;
  policy?: RetryPolicy;
}

/** Thinking budgets per effort level, in tokens. */
export const GEMINI_THINKING_BUDGETS: Readonly<Record<string, number>> = Object.freeze({ low: 1024, medium: 8192, high: 24_576 });

const FINISH_REASONS: Record<string, StopReason> = { STOP: 'stop', MAX_TOKENS: 'length' };

let sdk: Promise<typeof import('@google/genai')> | undefined;
/** The SDK, loaded once on first use. */
function loadSdk(): Promise<typeof import('@google/genai')> {
  sdk ??= import('@google/genai');
  return sdk;
}

export function createGenerateContentStream(options: GeminiStreamOptions): ModelStreamFn {
  const resolveModel = (id: string): ModelInfo | undefined => options.models?.().find((info) => info.id === id);
  const stream = (model: string, context: ModelContext, streamOptions: ModelStreamOptions): AsyncIterable<AssistantStreamEvent> => {
    const request = trackedRequest({ provider: options.provider, authHint: options.authHint, model, signal: streamOptions.signal, policy: options.policy });
    return runProviderStream(request.options, async function* (builder, signal) {
      const connection = await options.connect(signal);
      request.connected(connection);
      const { GoogleGenAI } = await loadSdk();
      const client = new GoogleGenAI({
        apiKey: connection.apiKey,
        httpOptions: { baseUrl: connection.baseURL, headers: connection.headers, timeout: connection.timeoutMs, retryOptions: { attempts: 1 } },
      });
      const budget = streamOptions.reasoning ? GEMINI_THINKING_BUDGETS[streamOptions.reasoning] : undefined;
      if (streamOptions.reasoning && budget === undefined) {
        throw new ProviderProtocolError(`unknown thinking level "${streamOptions.reasoning}"; use one of ${Object.keys(GEMINI_THINKING_BUDGETS).join(', ')}`);
      }
      const config: GenerateContentConfig = { abortSignal: signal };
      if (context.systemPrompt) config.systemInstruction = context.systemPrompt;
      if (context.tools.length) config.tools = [{ functionDeclarations: toGeminiTools(context.tools) }];
      if (streamOptions.maxOutputTokens) config.maxOutputTokens = streamOptions.maxOutputTokens;
      if (budget) config.thinkingConfig = { includeThoughts: true, thinkingBudget: budget };
      const chunks = await client.models.generateContentStream({ model, contents: toGeminiContents(context.messages), config });
      let finished = false;
      let calls = 0;
      for await (const chunk of chunks) {
        for (const event of mapChunk(builder, chunk, options.provider, () => calls++)) yield event;
        if (chunk.candidates?.some((candidate) => candidate.finishReason)) finished = true;
      }
      if (!finished) throw new IncompleteStreamError('the response stream ended before the model finished');
    });
  };
  return Object.assign(stream, { ...(options.models && { models: options.models }), resolveModel });
}

function* mapChunk(builder: MessageBuilder, chunk: GenerateContentResponse, provider: string, nextCall: () => number): Iterable<AssistantStreamEvent | undefined> {
  const usage = chunk.usageMetadata;
  if (usage) {
    const cached = usage.cachedContentTokenCount ?? 0;
    builder.usage({ input: Math.max(0, (usage.promptTokenCount ?? 0) - cached), output: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0), cacheRead: cached });
  }
  const candidate = chunk.candidates?.[0];
  if (!candidate) {
    if (chunk.promptFeedback?.blockReason) {
      builder.stop('error');
      builder.message.errorMessage = `${provider}: the prompt was blocked (${chunk.promptFeedback.blockReason})`;
    }
    return;
  }
  for (const part of candidate.content?.parts ?? []) {
    if (part.thought) {
      yield builder.thinking(part.text ?? '');
      if (part.thoughtSignature) builder.thinkingSignature(part.thoughtSignature);
    } else if (part.functionCall) {
      const index = nextCall();
      // A call's thought signature rides in an empty thinking part just before it (see convert.ts).
      if (part.thoughtSignature) builder.message.content.push({ type: 'thinking', thinking: '', signature: part.thoughtSignature });
      yield builder.toolCall(index, { id: part.functionCall.id || `call_${index + 1}`, name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) });
    } else if (part.text) {
      yield builder.text(part.text);
    }
  }
  if (candidate.finishReason) {
    const reason = FINISH_REASONS[candidate.finishReason];
    const hasCalls = builder.message.content.some((part) => part.type === 'toolCall');
    builder.stop(reason === 'stop' && hasCalls ? 'toolUse' : (reason ?? 'error'));
    if (!reason) builder.message.errorMessage = `${provider}: the model stopped with ${candidate.finishReason}${candidate.finishMessage ? `: ${candidate.finishMessage}` : ''}`;
  }
}
