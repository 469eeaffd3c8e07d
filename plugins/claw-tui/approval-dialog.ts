/**
 * The approval dialog: a tool call waiting for a person, over the chat. The
 * full arguments are shown (↑↓ PgUp PgDn scroll them); `a` approves, `A`
 * approves and always allows the call from now on (only after a second
 * `y`: it changes what the group runs unasked), `d` asks for a reason then
 * denies, `e` edits the arguments as JSON (prefilled),
 * Esc closes the dialog without answering (the call keeps waiting: any
 * client may answer it). No text cursor shows while it is open: the chat's
 * editor is not focused.
 */
import { matchesKey, truncateToWidth, type Component, type Focusable } from '@mariozechner/pi-tui';
import { terminalSafe } from '../../core/terminal-text.js';
import type { ApprovalRecord } from '../approvals/index.js';
import { style } from './chat-view.js';

export type DialogAnswer = { action: 'approve'; always?: true } | { action: 'deny'; reason: string } | { action: 'edit'; args: Record<string, unknown> };

export interface DialogActions {
  answer(approval: ApprovalRecord, answer: DialogAnswer): void;
  close(): void;
}

export class ApprovalDialog implements Component, Focusable {
  focused = false;
  #mode: 'choose' | 'reason' | 'edit' | 'always' = 'choose';
  #text = '';
  #problem = '';
  #top = 0;
  readonly #lines: string[];

  constructor(
    readonly approval: ApprovalRecord,
    private readonly height: () => number,
    private readonly actions: DialogActions,
  ) {
    this.#lines = terminalSafe(JSON.stringify(approval.args, null, 2)).split('\n');
  }

  handleInput(data: string): void {
    if (this.#mode === 'choose') return this.#choose(data);
    if (this.#mode === 'always') {
      if (data === 'y' || data === 'Y') this.actions.answer(this.approval, { action: 'approve', always: true });
      else this.#mode = 'choose';
      return;
    }
    if (matchesKey(data, 'escape')) {
      this.#mode = 'choose';
      this.#problem = '';
    } else if (matchesKey(data, 'enter')) this.#submit();
    else if (matchesKey(data, 'backspace')) this.#text = [...this.#text].slice(0, -1).join('');
    // eslint-disable-next-line no-control-regex
    else if (!/[\x00-\x1f\x7f]/.test(data)) this.#text += data;
  }

  #choose(data: string): void {
    const page = Math.max(1, this.height() - 8);
    if (data === 'a') this.actions.answer(this.approval, { action: 'approve' });
    else if (data === 'A') this.#mode = 'always';
    else if (data === 'd') {
      this.#mode = 'reason';
      this.#text = '';
    } else if (data === 'e') {
      this.#mode = 'edit';
      this.#text = JSON.stringify(this.approval.args);
    } else if (matchesKey(data, 'escape') || data === 'q') this.actions.close();
    else if (matchesKey(data, 'up')) this.#top = Math.max(0, this.#top - 1);
    else if (matchesKey(data, 'down')) this.#top = Math.min(Math.max(0, this.#lines.length - 1), this.#top + 1);
    else if (matchesKey(data, 'pageUp')) this.#top = Math.max(0, this.#top - page);
    else if (matchesKey(data, 'pageDown')) this.#top = Math.min(Math.max(0, this.#lines.length - page), this.#top + page);
  }

  #submit(): void {
    if (this.#mode === 'reason') {
      if (!this.#text.trim()) {
        this.#problem = 'type why (the model sees it), or Esc to go back';
        return;
      }
      this.actions.answer(this.approval, { action: 'deny', reason: this.#text.trim() });
      return;
    }
    let args: unknown;
    try {
      args = JSON.parse(this.#text);
    } catch {
      args = undefined;
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      this.#problem = 'the arguments must be one JSON object';
      return;
    }
    this.actions.answer(this.approval, { action: 'edit', args: args as Record<string, unknown> });
  }

  /** What "always allow" would cover, as the gateway words its rule: bash the exact command, another tool any call of it. */
  #alwaysWhat(): string {
    const { approval } = this;
    if (approval.toolName === 'bash' && typeof approval.args.command === 'string') return `exactly the command ${JSON.stringify(terminalSafe(approval.args.command))}`;
    return `every call of ${terminalSafe(approval.toolName)}`;
  }

  invalidate(): void {}

  render(width: number): string[] {
    const { approval } = this;
    const head = [
      style.bold(truncateToWidth(`approval ${approval.id} needed: ${terminalSafe(approval.toolName)}`, width)),
      truncateToWidth(terminalSafe(approval.reason), width),
      style.dim(truncateToWidth(`arguments (lines ${this.#top + 1}-${Math.min(this.#lines.length, this.#top + Math.max(1, this.height() - 8))} of ${this.#lines.length}):`, width)),
    ];
    const body = this.#lines.slice(this.#top, this.#top + Math.max(1, this.height() - 8)).map((line) => truncateToWidth(line, width));
    const prompt =
      this.#mode === 'choose'
        ? style.notice(truncateToWidth('a approve · A always allow · d deny (with a reason) · e edit the arguments · ↑↓ PgUp PgDn scroll · Esc later', width))
        : this.#mode === 'always'
          ? style.notice(truncateToWidth(`always allow ${this.#alwaysWhat()} in group ${terminalSafe(approval.group)}, without asking again? y yes · any other key no`, width))
          : style.notice(truncateToWidth(`${this.#mode === 'reason' ? 'deny because' : 'run with'}: ${terminalSafe(this.#text)}`, width));
    const foot = this.#mode === 'choose' || this.#mode === 'always' ? [] : [style.dim(truncateToWidth('Enter sends · Esc back', width))];
    return [...head, ...body, '', prompt, ...foot, ...(this.#problem ? [style.notice(truncateToWidth(this.#problem, width))] : [])];
  }
}
