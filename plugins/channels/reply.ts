/**
 * What of a run goes out on a channel: each completed assistant message's
 * text (progress text between tool calls included) and an input transform's
 * `handled` feedback. Reasoning, tool calls, tool results, empty text and a
 * message the model did not finish (error, aborted) never go out.
 */
import type { AgentEvent } from '../../core/index.js';

export function replyTextOf(event: AgentEvent): string | undefined {
  if (event.type === 'input_handled') return event.receipt.feedback.trim() || undefined;
  if (event.type !== 'message_end' || event.message.role !== 'assistant') return undefined;
  const { message } = event;
  if (message.stopReason === 'error' || message.stopReason === 'aborted') return undefined;
  const text = message.content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('')
    .trim();
  return text || undefined;
}
