/**
 * Checkpoints: the message entries of a path, numbered from 1. Cutting after
 * a checkpoint must leave a transcript a model accepts, so a checkpoint is
 * valid only when every tool call before it has its result before it and the
 * next message is not a tool result (the same pairing rule as
 * core/agent/transcript.ts findPairingProblem, computed for every prefix in
 * one pass).
 */
import { BIDI_CONTROLS, ErrorCodes, XdogError, type Message } from '../../core/index.js';
import type { Checkpoint } from './types.js';

/** A message of the path with the entry it came from. */
export interface PathMessage {
  entryId: number;
  message: Message;
}

const PREVIEW_CHARS = 80;

/** Why cutting after each message would break tool pairing (undefined where the cut is fine). */
export function cutProblems(messages: readonly PathMessage[]): (string | undefined)[] {
  const problems: (string | undefined)[] = [];
  let open = new Map<string, string>();
  for (let index = 0; index < messages.length; index++) {
    const { message } = messages[index]!;
    if (message.role === 'toolResult') open.delete(message.toolCallId);
    else if (message.role === 'assistant') {
      open = new Map();
      for (const part of message.content) if (part.type === 'toolCall') open.set(part.id, part.name);
    } else open = new Map();
    const next = messages[index + 1]?.message;
    if (open.size) {
      const [id, name] = open.entries().next().value as [string, string];
      problems.push(`tool call "${id}" (${name}) would be cut from its result`);
    } else if (next?.role === 'toolResult') problems.push(`the next message is a tool result for "${next.toolCallId}", which would lose its call`);
    else problems.push(undefined);
  }
  return problems;
}

/** Controls, line separators and bidi formatting: a preview is one plain line. */
const UNPRINTABLE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029${BIDI_CONTROLS}]+`, 'gu');

/** A one-line preview of a message, at most 80 characters (checkpoints and extension session trees show it). */
export function messagePreview(message: Message): string {
  let text: string;
  if (message.role === 'user') text = typeof message.content === 'string' ? message.content : message.content.map((p) => (p.type === 'text' ? p.text : '[image]')).join(' ');
  else if (message.role === 'assistant') {
    text = message.content.map((p) => (p.type === 'text' ? p.text : p.type === 'toolCall' ? `[${p.name}]` : '')).join(' ');
  } else text = `${message.toolName}: ${message.content.map((p) => (p.type === 'text' ? p.text : '[image]')).join(' ')}`;
  const clean = text.replace(UNPRINTABLE, ' ').replace(/\s+/g, ' ').trim();
  const chars = [...clean];
  return chars.length > PREVIEW_CHARS ? `${chars.slice(0, PREVIEW_CHARS - 1).join('')}…` : clean;
}

export function checkpointsOf(messages: readonly PathMessage[]): Checkpoint[] {
  const problems = cutProblems(messages);
  return messages.map(({ entryId, message }, i) => ({ index: i + 1, entryId, role: message.role, valid: problems[i] === undefined, preview: messagePreview(message) }));
}

/** The message at 1-based checkpoint `index`, refused (INVALID_ARGUMENT naming the index and why) when out of range or invalid. */
export function checkpointAt(messages: readonly PathMessage[], index: number): PathMessage {
  if (!Number.isInteger(index) || index < 1 || index > messages.length) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `checkpoint ${index} does not exist: the session has ${messages.length} message${messages.length === 1 ? '' : 's'} (checkpoints are 1-based)`);
  }
  const problem = cutProblems(messages.slice(0, index + 1))[index - 1];
  if (problem) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `checkpoint ${index} is inside a tool batch: ${problem}`, {
      hint: 'pick a checkpoint after the tool results (a user message or an assistant reply without tool calls)',
    });
  }
  return messages[index - 1]!;
}
