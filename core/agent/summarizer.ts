/**
 * The compaction summarizer: one request to the session's own model, with no
 * tools, that turns the summarized messages (and the previous summary, if
 * any) into a structured checkpoint. It fails — never returns a placeholder —
 * when the model fails, is cancelled, stops early or answers with nothing.
 */
import { ErrorCodes, XdogError, describeError } from '../errors.js';
import { LIMITS, utf8Bytes } from '../limits.js';
import type { ModelStreamFn } from '../model/types.js';
import { instrumented, type AgentInstrumentation } from './instrumentation.js';
import type { AssistantMessage, Message, Usage } from './messages.js';

/** The system prompt of a summary request. */
export const SUMMARY_SYSTEM_PROMPT =
  'You write checkpoint summaries of conversations between a user and an AI agent, so the agent can continue the work ' +
  'from the summary alone. Do NOT continue the conversation and do NOT answer questions in it: only summarize it.';

const SECTIONS = `Use exactly these sections (Markdown headings), each concise:

## Goal
## Constraints and preferences
## Progress
### Done
### In progress
### Blocked
## Key decisions
## Next steps
## Critical context

Keep exact file paths, function and tool names, commands, identifiers, numbers and error messages verbatim.`;

/** What one summary request needs. */
export interface SummaryRequest {
  streamFn: ModelStreamFn;
  /** The session's model. */
  model: string;
  /** The messages to summarize (never the previous summary message). */
  messages: readonly Message[];
  /** The summary of an earlier compaction, updated rather than started over. */
  previous?: string;
  /** Extra focus from the user (`compact("keep the API notes")`). */
  instructions?: string;
  signal?: AbortSignal;
  reasoning?: string;
  /** The agent's model-call wrapper (a tracer's `chat` span around the summary request); absent: called directly. */
  modelCall?: AgentInstrumentation['modelCall'];
}

/** A summary and what producing it cost. */
export interface SummaryResult {
  summary: string;
  usage: Usage;
  /** The assistant message the summary came from (model, stop reason). */
  message: AssistantMessage;
}

function partsText(content: Message['content']): string {
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'image') return `[image ${part.mimeType}]`;
      if (part.type === 'toolCall') return `[tool call ${part.name} ${JSON.stringify(part.arguments)}]`;
      return ''; // Thinking is the model's scratch work, not part of the record.
    })
    .filter((text) => text.length > 0)
    .join('\n');
}

/** The conversation as plain text, one labelled block per message. */
export function serializeConversation(messages: readonly Message[]): string {
  return messages
    .map((message) => {
      if (message.role === 'user') return `[user]\n${partsText(message.content)}`;
      if (message.role === 'assistant') {
        const failed = message.stopReason === 'error' || message.stopReason === 'aborted' ? ` (${message.stopReason}: ${message.errorMessage ?? 'no detail'})` : '';
        return `[assistant${failed}]\n${partsText(message.content)}`;
      }
      return `[tool result ${message.toolName}${message.isError ? ' (error)' : ''}]\n${partsText(message.content)}`;
    })
    .join('\n\n');
}

/** The user message of a summary request. */
export function summaryPrompt(messages: readonly Message[], previous?: string, instructions?: string): string {
  const conversation = `<conversation>\n${serializeConversation(messages)}\n</conversation>`;
  const task = previous === undefined
    ? `Summarize the conversation above as a checkpoint. ${SECTIONS}`
    : `<previous-summary>\n${previous}\n</previous-summary>\n\nThe previous summary covers what came before the conversation above. ` +
      `Update it with the conversation: keep what still holds, add what is new, move finished items to Done, drop only what was superseded. ${SECTIONS}`;
  const focus = instructions ? `\n\nAdditional focus: ${instructions}` : '';
  return `${conversation}\n\n${task}${focus}`;
}

function failed(message: string, hint = 'the history was left unchanged; retry, or compact with another model'): XdogError {
  return new XdogError(ErrorCodes.MODEL_FAILED, message, { hint });
}

/** Asks the model for a summary; throws XdogError (MODEL_FAILED, ABORTED, LIMIT_EXCEEDED) when there is no usable one. */
export async function summarizeMessages(request: SummaryRequest): Promise<SummaryResult> {
  const prompt = summaryPrompt(request.messages, request.previous, request.instructions);
  const context = { systemPrompt: SUMMARY_SYSTEM_PROMPT, messages: [{ role: 'user' as const, content: prompt, timestamp: Date.now() }], tools: [] };
  const options = { ...(request.signal ? { signal: request.signal } : {}), ...(request.reasoning === undefined ? {} : { reasoning: request.reasoning }) };
  const cancelled = () => new XdogError(ErrorCodes.ABORTED, 'the compaction was cancelled', { hint: 'the history was left unchanged' });
  // The model call itself: its answer, or a throw (inside the wrapper, so a span sees the failure).
  const call = async (): Promise<AssistantMessage> => {
    let answer: AssistantMessage | undefined;
    try {
      for await (const event of request.streamFn(request.model, context, options)) {
        if (event.type === 'done' || event.type === 'error') {
          answer = event.message;
          break;
        }
      }
    } catch (error) {
      if (request.signal?.aborted) throw cancelled();
      throw failed(`the summary request failed: ${describeError(error)}`);
    }
    if (!answer) throw request.signal?.aborted ? cancelled() : failed('the summary request ended without an answer');
    return answer;
  };
  const final = await instrumented(request.modelCall, { model: request.model, turn: 0, context }, call);
  if (request.signal?.aborted || final.stopReason === 'aborted') throw cancelled();
  if (final.stopReason === 'error') throw failed(`the summary request failed: ${final.errorMessage ?? 'no detail'}`);
  if (final.stopReason === 'length') throw failed('the summary was cut off at the output limit, so it is incomplete', 'the history was left unchanged; compact with a model that allows longer answers');
  const summary = final.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('').trim();
  if (!summary) throw failed('the model returned an empty summary');
  const bytes = utf8Bytes(summary);
  if (bytes > LIMITS.compactionSummaryBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the summary is ${bytes} bytes, over the limit of ${LIMITS.compactionSummaryBytes}`, { hint: 'the history was left unchanged' });
  }
  return { summary, usage: final.usage, message: final };
}
