/**
 * Recognises a provider's "the request is larger than the context window"
 * error, so the agent can compact and retry once instead of failing. The
 * message is all a failed assistant message carries, so this matches the
 * wording each vendor uses for that error (and only that error: a rate
 * limit or a bad request must not trigger a compaction).
 */
import type { AssistantMessage } from './messages.js';

const OVERFLOW_PATTERNS: readonly RegExp[] = [
  // OpenAI (and OpenAI-compatible servers): code context_length_exceeded, "maximum context length is N tokens".
  /context_length_exceeded/i,
  /maximum context length/i,
  // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum".
  /prompt is too long/i,
  // Google Gemini: "The input token count (N) exceeds the maximum number of tokens allowed (M)".
  /input token count.*exceeds the maximum/i,
  // llama.cpp / vLLM / Ollama style servers.
  /exceeds (the )?(available )?context (size|window|length)/i,
  /context window (is )?exceeded/i,
  // GitHub Copilot and others relaying the model's limit.
  /prompt token count of \d+ exceeds the limit/i,
];

/** True when `message` failed because the request did not fit the model's context window. */
export function isContextOverflow(message: AssistantMessage): boolean {
  if (message.stopReason !== 'error' || !message.errorMessage) return false;
  const text = message.errorMessage;
  return OVERFLOW_PATTERNS.some((pattern) => pattern.test(text));
}
