/**
 * Compaction planning: pure functions over a message list. They estimate
 * tokens, find where complete user turns start, and choose the cut: the
 * messages before it are summarized, the ones from it on are kept verbatim.
 * A cut always lands on the first message of a user turn, so it never splits
 * a tool call from its result and always keeps the latest turn whole.
 */
import type { Message, UserMessage } from './messages.js';

/** Characters per token of the rough estimate (the usual 4 for English text and code). */
const CHARS_PER_TOKEN = 4;
/** What one image is counted as, whatever its size (providers bill images by their own rules). */
const IMAGE_TOKENS = 1200;

/** Defaults of `CompactionConfig`. */
export const COMPACTION_DEFAULTS = Object.freeze({
  /** Tokens left free for the next answer: automatic compaction starts when the context exceeds window − reserve. */
  reserveTokens: 16_384,
  /** Recent context kept verbatim (at least, unless the history has no earlier turn start). */
  keepRecentTokens: 20_000,
});

const SUMMARY_HEADER = 'Summary of the earlier part of this conversation (compacted):\n\n';

/** The user message that stands for the summarized part of a compacted history (always its first message). */
export function compactionSummaryMessage(summary: string, timestamp: number): UserMessage {
  return { role: 'user', content: [{ type: 'text', text: `${SUMMARY_HEADER}${summary}` }], timestamp };
}

/** The summary a message carries when it is a compaction summary message, else undefined. */
export function summaryFromMessage(message: Message | undefined): string | undefined {
  if (message?.role !== 'user' || typeof message.content === 'string' || message.content.length !== 1) return undefined;
  const part = message.content[0]!;
  return part.type === 'text' && part.text.startsWith(SUMMARY_HEADER) ? part.text.slice(SUMMARY_HEADER.length) : undefined;
}

/** A rough token count of one message: characters / 4, images at a flat 1200. */
export function estimateMessageTokens(message: Message): number {
  let chars = 0;
  let images = 0;
  if (typeof message.content === 'string') chars = message.content.length;
  else {
    for (const part of message.content) {
      if (part.type === 'text') chars += part.text.length;
      else if (part.type === 'image') images++;
      else if (part.type === 'thinking') chars += part.thinking.length;
      else chars += part.name.length + JSON.stringify(part.arguments).length;
    }
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS;
}

/** The estimated tokens of `messages[from..to)`. */
export function estimateTokens(messages: readonly Message[], from = 0, to = messages.length): number {
  let total = 0;
  for (let index = from; index < to; index++) total += estimateMessageTokens(messages[index]!);
  return total;
}

/**
 * The context size of `messages`: the usage the provider reported for the
 * latest assistant message at or after `reliableFrom` (usage of messages
 * before it describes a context that no longer exists), plus estimates for
 * the messages after it; all estimated when there is no such usage.
 */
export function contextTokens(messages: readonly Message[], reliableFrom = 0): number {
  let tail = 0;
  for (let index = messages.length - 1; index >= reliableFrom; index--) {
    const message = messages[index]!;
    if (message.role === 'assistant' && message.stopReason !== 'error' && message.stopReason !== 'aborted') {
      const { input, output, cacheRead, cacheWrite } = message.usage;
      const reported = input + output + (cacheRead ?? 0) + (cacheWrite ?? 0);
      if (reported > 0) return reported + tail;
    }
    tail += estimateMessageTokens(message);
  }
  return tail + estimateTokens(messages, 0, Math.min(reliableFrom, messages.length));
}

/**
 * The indices (at or after `from`) where a complete user turn starts: a user
 * message the conversation was at rest before — the first message, or one
 * right after an assistant message that called no tools. A user message right
 * after tool results (a steer) continues the turn it steers; consecutive user
 * messages belong to the turn the first of them starts.
 */
export function userTurnStarts(messages: readonly Message[], from = 0): number[] {
  const starts: number[] = [];
  for (let index = Math.max(0, from); index < messages.length; index++) {
    if (messages[index]!.role !== 'user') continue;
    const previous = index === from ? undefined : messages[index - 1];
    if (previous === undefined || (previous.role === 'assistant' && !previous.content.some((part) => part.type === 'toolCall'))) starts.push(index);
  }
  return starts;
}

/** Where to cut a history, from `planCompaction`. */
export interface CompactionPlan {
  /** The first message summarized (1 when message 0 is the previous summary, else 0). */
  summarizeFrom: number;
  /** The first message kept verbatim: the start of a user turn. */
  firstKeptIndex: number;
  /** The estimated tokens of the messages summarized and of those kept. */
  summarizedTokens: number;
  keptTokens: number;
}

/** What the planner needs besides the messages. */
export interface CompactionPlanOptions {
  /** Recent context to keep verbatim, in estimated tokens. */
  keepRecentTokens: number;
  /** True when message 0 is the summary of an earlier compaction (it is folded into the new summary, never kept). */
  summarized?: boolean;
}

/**
 * Chooses the cut, or undefined when there is nothing worth compacting: a
 * single user turn, or a history no larger than `keepRecentTokens`. The cut
 * is the latest turn start that still keeps at least `keepRecentTokens`;
 * when even the earliest one keeps less, that earliest one (so the large
 * old turns go). It is never after the start of the latest user turn.
 */
export function planCompaction(messages: readonly Message[], options: CompactionPlanOptions): CompactionPlan | undefined {
  const summarizeFrom = options.summarized ? 1 : 0;
  const candidates = userTurnStarts(messages, summarizeFrom).filter((index) => index > summarizeFrom);
  if (candidates.length === 0) return undefined;
  const total = estimateTokens(messages, summarizeFrom);
  if (total <= options.keepRecentTokens) return undefined;
  // Kept tokens shrink as the cut moves later: walk back from the latest start until enough is kept.
  let firstKeptIndex = candidates[0]!;
  let keptTokens = 0;
  let end = messages.length;
  for (let i = candidates.length - 1; i >= 0; i--) {
    const start = candidates[i]!;
    keptTokens += estimateTokens(messages, start, end);
    end = start;
    if (keptTokens >= options.keepRecentTokens) {
      firstKeptIndex = start;
      break;
    }
  }
  keptTokens = estimateTokens(messages, firstKeptIndex);
  return { summarizeFrom, firstKeptIndex, summarizedTokens: total - keptTokens, keptTokens };
}
