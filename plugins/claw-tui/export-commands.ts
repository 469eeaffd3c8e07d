/**
 * `/export PATH [FORMAT] [SCOPE]` and `/share PATH [SCOPE]`: what goes out
 * is chosen (a scope), shown (a review of the exact, redacted text), and
 * written only on `w`; Escape, `q` or `/export cancel` writes nothing. By
 * default only what the person and the model said goes out (user and
 * assistant text); `full` adds reasoning, tool calls and tool results, and a
 * range `N-M` (message numbers of /status) narrows it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { resolveConfigPath } from '../../core/config-paths.js';
import { spokenText } from '../../core/conversation-export.js';
import { environmentSecrets } from '../../core/redact.js';
import type { ClawTui } from './app.js';
import { ActionView } from './action-view.js';
import type { PathMessage } from './conversation.js';
import { renderConversation, writePrivateFile, type ExportFormat } from './export-formats.js';

export interface ExportScope {
  /** Reasoning, tool calls and tool results too. */
  full: boolean;
  from: number;
  to: number;
}

const usage = (message: string): XdogError => new XdogError(ErrorCodes.USAGE, message, { hint: '/export PATH [text|md|json|html] [full] [N-M], /share PATH [full] [N-M], /export cancel' });

/** Parses the scope words: `full` and a range `N`, `N-` or `N-M`. */
export function parseScope(words: readonly string[]): ExportScope {
  const scope: ExportScope = { full: false, from: 1, to: Number.MAX_SAFE_INTEGER };
  for (const word of words) {
    const range = /^([1-9]\d*)(-([1-9]\d*)?)?$/.exec(word);
    if (word === 'full') scope.full = true;
    else if (word === 'all') continue;
    else if (range) {
      scope.from = Number(range[1]);
      scope.to = range[2] ? (range[3] ? Number(range[3]) : Number.MAX_SAFE_INTEGER) : scope.from;
      if (scope.to < scope.from) throw usage(`the range ${word} ends before it starts`);
    } else throw usage(`"${word}" is not a scope (full, all, N, N- or N-M)`);
  }
  return scope;
}

/** The messages a scope lets out; without `full`, user and assistant text only (no reasoning, no tool calls). */
export function scopeMessages(messages: readonly PathMessage[], scope: ExportScope): PathMessage[] {
  const inRange = messages.filter((entry) => entry.index >= scope.from && entry.index <= scope.to);
  return scope.full ? inRange : spokenText(inRange);
}

function formatOf(file: string): ExportFormat {
  if (file.endsWith('.md')) return 'md';
  if (file.endsWith('.json')) return 'json';
  if (file.endsWith('.html') || file.endsWith('.htm')) return 'html';
  return 'text';
}

/** Refuses, before the review, a target that could not be written (the write checks again). */
function checkTarget(target: string): string {
  const file = path.resolve(target);
  if (!fs.statSync(path.dirname(file), { throwIfNoEntry: false })?.isDirectory()) throw new XdogError(ErrorCodes.NOT_FOUND, `the directory ${path.dirname(file)} does not exist`, { hint: 'create it first, or write somewhere else' });
  if (fs.lstatSync(file, { throwIfNoEntry: false })) throw new XdogError(ErrorCodes.CONFLICT, `${file} already exists; it was not overwritten`, { hint: 'choose another file name' });
  return file;
}

export class ExportCommands {
  #review: ActionView | undefined;

  constructor(
    private readonly app: ClawTui,
    private readonly conversation: () => Promise<PathMessage[]>,
    private readonly title: () => string,
  ) {}

  async run(kind: 'export' | 'share', args: string): Promise<void> {
    const words = args.split(/\s+/).filter(Boolean);
    if (words[0] === 'cancel' && words.length === 1) return this.#cancel(kind);
    const target = words.shift();
    if (!target) throw usage(`/${kind} needs a PATH`);
    let format: ExportFormat = kind === 'share' ? 'html' : formatOf(target);
    if (kind === 'export' && ['text', 'md', 'json', 'html'].includes(words[0] ?? '')) format = words.shift() as ExportFormat;
    const scope = parseScope(words);
    // A relative path names a file of the group's workspace (as /attach), not of the TUI's cwd.
    const file = checkTarget(resolveConfigPath(target, this.app.group?.workspace ?? process.cwd()));
    const messages = scopeMessages(await this.conversation(), scope);
    if (!messages.length) throw new XdogError(ErrorCodes.NOT_FOUND, 'nothing in that scope to write', { hint: '/status numbers the messages' });
    const secrets = environmentSecrets();
    const content = renderConversation(messages, format, secrets, this.title());
    const what = `${messages.length} message(s), ${scope.full ? 'with reasoning and tool calls' : 'user and assistant text only'}${scope.from > 1 || scope.to < Number.MAX_SAFE_INTEGER ? `, messages ${scope.from}-${scope.to === Number.MAX_SAFE_INTEGER ? 'end' : scope.to}` : ''}`;
    const write = (): void => {
      this.#close();
      try {
        writePrivateFile(file, content);
        this.app.notice(kind === 'share' ? `shared page written to ${file} (standalone HTML, no scripts, secrets redacted; ${what})` : `exported to ${file} (${format}, 0600; ${what})`);
      } catch (error) {
        this.app.error(error);
      }
    };
    // The review shows the text form of exactly what is written (an HTML page holds the same text, escaped).
    const preview = format === 'html' || format === 'json' ? renderConversation(messages, 'text', secrets) : content;
    this.#review = new ActionView(`review before writing ${file} (${format}; ${what}) · w writes it, q or Esc writes nothing`, preview, () => this.app.tui.terminal.rows - 2, () => this.#cancel(kind), { w: ['write it', write] });
    this.app.showOverlay(this.#review);
  }

  #close(): void {
    this.#review = undefined;
    this.app.closeOverlay();
  }

  #cancel(kind: 'export' | 'share'): void {
    if (!this.#review) throw new XdogError(ErrorCodes.USAGE, `there is no /${kind} to cancel`, { hint: `/${kind} PATH starts one` });
    this.#close();
    this.app.notice(`/${kind} cancelled; nothing was written`);
  }
}
