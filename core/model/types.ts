/**
 * The model contract: one function type, `ModelStreamFn`, plus optional
 * metadata. Provider plugins implement it; the agent loop only calls it.
 */
import type { AssistantMessage, Message } from '../agent/messages.js';
import type { ToolDefinition } from '../agent/tool-types.js';

/** Declared limits for images in one request. */
export interface ImageLimits {
  /** Images per request (0 = the model takes no images). */
  maxCount?: number;
  /** Decoded bytes per image. */
  maxBytes?: number;
  /** Accepted MIME types. */
  mimeTypes?: string[];
}

/** What a provider knows about one model. Every field but id/provider is optional. */
export interface ModelInfo {
  /** The model id without provider prefix. */
  id: string;
  provider: string;
  name?: string;
  contextWindow?: number;
  /** Prompt ceiling in tokens (0 = unreported); at most contextWindow. */
  maxPromptTokens?: number;
  maxOutputTokens?: number;
  input?: Array<'text' | 'image'>;
  /** What the model produces (absent = text); `image` marks an image generator. */
  output?: Array<'text' | 'image'>;
  images?: ImageLimits;
  reasoningEfforts?: string[];
  toolSupport?: boolean;
}

/** What one model request carries. */
export interface ModelContext {
  systemPrompt?: string;
  /**
   * The conversation, read-only. It may be the agent's own history (so a
   * turn copies nothing): it does not change while the stream runs, but it
   * grows after it, so a stream function that keeps the messages beyond its
   * stream (a recorder, a log) keeps a copy.
   */
  messages: Message[];
  tools: ToolDefinition[];
}

export interface ModelStreamOptions {
  signal?: AbortSignal;
  /** Reasoning effort, one of the model's `reasoningEfforts`. */
  reasoning?: string;
  maxOutputTokens?: number;
}

/** Deltas streamed by a model; `done` and `error` are final and carry the whole message. */
export type AssistantStreamEvent =
  | { type: 'start'; partial: AssistantMessage }
  | { type: 'text_delta'; delta: string; partial: AssistantMessage }
  | { type: 'thinking_delta'; delta: string; partial: AssistantMessage }
  | { type: 'toolcall_delta'; delta: string; partial: AssistantMessage }
  | { type: 'toolcall_end'; partial: AssistantMessage }
  | { type: 'retry'; attempt: number; delayMs: number; reason: string }
  | { type: 'done'; message: AssistantMessage }
  | { type: 'error'; message: AssistantMessage };

/**
 * Streams one assistant message for `model` ("provider/model" or a bare id).
 *
 * Contract: must not throw or reject. A failure ends the stream with an
 * `error` event whose message has `stopReason: "error" | "aborted"` and an
 * `errorMessage`.
 */
export interface ModelStreamFn {
  (model: string, context: ModelContext, options: ModelStreamOptions): AsyncIterable<AssistantStreamEvent>;
  /** Metadata for one model, or undefined when unknown. */
  resolveModel?(model: string): ModelInfo | undefined;
  /** The models this function can serve. */
  models?(): ModelInfo[];
}

/**
 * A model provider, contributed by a provider plugin as a multi-binding of
 * `ModelProviderContribution` and collected by the model registry.
 */
export interface ModelProvider {
  /** The provider id: the part before "/" in "provider/model". */
  readonly name: string;
  /** Streams one message; receives the bare model id (without "provider/"). */
  readonly stream: ModelStreamFn;
  /**
   * Resolves the credential a request would use, without calling the model, so
   * a run can fail before its first step; throws an XdogError (AUTH_FAILED)
   * that says what to do. Absent for providers that need none.
   */
  checkCredentials?(): Promise<void>;
}
