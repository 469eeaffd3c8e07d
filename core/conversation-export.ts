/**
 * A conversation written out, the same way by every client (the claw TUI's
 * /export and /share, `xdog agent chat`'s /export): plain text, Markdown,
 * JSON, JSON Lines (one message a line), or a standalone HTML page with a
 * strict Content-Security-Policy (no scripts, no links, no remote anything).
 * Every format passes through `redact` first.
 */
import type { Message } from './agent/messages.js';
import { messageText, thinkingText, toolCallLine, toolCallsOf } from './conversation-text.js';
import { redact } from './redact.js';

/** A message with its 1-based number in the conversation. */
export interface NumberedMessage {
  index: number;
  message: Message;
}

type PathMessage = NumberedMessage;

/** `source`: the text form with reasoning and every tool call's full arguments (what /transcript shows). */
export type ExportFormat = 'text' | 'md' | 'json' | 'jsonl' | 'html' | 'source';

function speaker(entry: PathMessage): string {
  return entry.message.role === 'toolResult' ? `tool result (${(entry.message as { toolName?: string }).toolName ?? 'tool'})` : entry.message.role;
}

function bodyOf(entry: PathMessage): string {
  const calls = toolCallsOf(entry.message).map((call) => `[tool call] ${toolCallLine(call.name, call.arguments, 2000)}`);
  return [messageText(entry.message), ...calls].filter(Boolean).join('\n');
}

/** One message as the transcript browser shows it: its heading and its whole source, redacted. */
export interface SourceEntry {
  title: string;
  text: string;
}

/** The messages as source entries (what /transcript browses), each redacted. */
export function sourceEntries(messages: readonly PathMessage[], secrets: readonly string[]): SourceEntry[] {
  return messages.map((entry) => ({ title: `#${entry.index} ${speaker(entry)}`, text: redact(sourceOf(entry), secrets) }));
}

/** Everything of one message: its reasoning, text (a tool's whole result) and tool calls with their whole arguments. */
function sourceOf(entry: PathMessage): string {
  const thinking = thinkingText(entry.message);
  const calls = toolCallsOf(entry.message).map((call) => `[tool call] ${call.name} ${JSON.stringify(call.arguments ?? {}, null, 2)}`);
  return [thinking ? `[reasoning]\n${thinking}\n[/reasoning]` : '', messageText(entry.message), ...calls].filter(Boolean).join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);
}

export const SHARE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; script-src 'none'; base-uri 'none'; form-action 'none'";

export function renderConversation(messages: readonly PathMessage[], format: ExportFormat, secrets: readonly string[], title = 'xdog conversation'): string {
  const clean = (text: string): string => redact(text, secrets);
  switch (format) {
    case 'text':
      return messages.map((entry) => `#${entry.index} ${speaker(entry)}:\n${clean(bodyOf(entry))}\n`).join('\n');
    case 'source':
      return sourceEntries(messages, secrets).map((entry) => `${entry.title}:\n${entry.text}\n`).join('\n');
    case 'md':
      return `# ${clean(title)}\n\n${messages
        .map((entry) => {
          const thinking = thinkingText(entry.message);
          return `## ${entry.index}. ${speaker(entry)}\n\n${thinking ? `> ${clean(thinking).split('\n').join('\n> ')}\n\n` : ''}${clean(bodyOf(entry))}\n`;
        })
        .join('\n')}`;
    case 'json':
      return `${JSON.stringify({ title: clean(title), messages: messages.map((entry) => ({ index: entry.index, role: entry.message.role, text: clean(bodyOf(entry)) })) }, null, 2)}\n`;
    case 'jsonl':
      return messages.map((entry) => `${JSON.stringify({ index: entry.index, role: entry.message.role, ...(entry.message.role === 'toolResult' ? { toolName: (entry.message as { toolName?: string }).toolName ?? 'tool' } : {}), text: clean(bodyOf(entry)) })}\n`).join('');
    case 'html':
      return [
        '<!doctype html>',
        '<html lang="en"><head><meta charset="utf-8">',
        `<meta http-equiv="Content-Security-Policy" content="${SHARE_CSP}">`,
        '<meta name="referrer" content="no-referrer">',
        `<title>${escapeHtml(clean(title))}</title>`,
        '<style>body{font:15px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:.75rem;border-radius:4px}.user h2{color:#2456a8}.assistant h2{color:#2d7a3a}h2{font-size:1rem;margin:1.5rem 0 .25rem}</style>',
        '</head><body>',
        `<h1>${escapeHtml(clean(title))}</h1>`,
        ...messages.map((entry) => `<section class="${entry.message.role}"><h2>${entry.index}. ${escapeHtml(speaker(entry))}</h2><pre>${escapeHtml(clean(bodyOf(entry)))}</pre></section>`),
        '</body></html>',
        '',
      ].join('\n');
  }
}

/** What leaves by default: user and assistant text only (no reasoning, no tool calls, no tool results). */
export function spokenText<T extends NumberedMessage>(messages: readonly T[]): T[] {
  return messages.flatMap((entry) => {
    const { message } = entry;
    if (message.role !== 'user' && message.role !== 'assistant') return [];
    const content = typeof message.content === 'string' ? message.content : message.content.filter((part) => part.type === 'text');
    if (typeof content !== 'string' && content.length === 0) return [];
    return [{ ...entry, message: { ...message, content } as Message }];
  });
}
