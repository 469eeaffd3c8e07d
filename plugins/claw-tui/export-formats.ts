/**
 * A conversation written out: plain text, Markdown, JSON, or a standalone
 * HTML page with a strict Content-Security-Policy (no scripts, no links, no
 * remote anything). Every format passes through `redact` first. Files are new
 * (never overwritten), 0600, in a directory that must already exist.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { messageText, thinkingText, toolCallLine, toolCallsOf, type PathMessage } from './conversation.js';
import { redact } from '../../core/redact.js';

/** `source`: the text form with reasoning and every tool call's full arguments (what /transcript shows). */
export type ExportFormat = 'text' | 'md' | 'json' | 'html' | 'source';

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

/** Writes `content` to a new 0600 file; refuses an existing path or a missing directory, and leaves nothing behind on failure. */
export function writePrivateFile(target: string, content: string): string {
  const file = path.resolve(target);
  const dir = path.dirname(file);
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new XdogError(ErrorCodes.NOT_FOUND, `the directory ${dir} does not exist`, { hint: 'create it first, or write somewhere else' });
  }
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new XdogError(ErrorCodes.CONFLICT, `${file} already exists; it was not overwritten`, { hint: 'choose another file name' });
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `cannot create ${file}: ${(error as Error).message}`);
  }
  try {
    fs.writeFileSync(fd, content);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw error;
  }
  fs.closeSync(fd);
  return file;
}
