/**
 * A text view over the chat with its own one-letter actions (the plan
 * inspector's e/r/s, the diff's r): ↑↓ PgUp PgDn scroll, Escape or q closes.
 * Its text can be replaced while it is open (a plan changed by the model, a
 * refreshed diff), keeping the scroll position where it still fits.
 */
import { matchesKey, truncateToWidth, type Component, type Focusable } from '@mariozechner/pi-tui';
import { terminalSafe } from '../../core/terminal-text.js';
import { style } from './chat-view.js';

export type ViewActions = Record<string, [label: string, run: () => void]>;

export class ActionView implements Component, Focusable {
  focused = false;
  #lines: string[] = [];
  #top = 0;
  #status = '';

  constructor(
    private title: string,
    text: string,
    private readonly height: () => number,
    private readonly close: () => void,
    private readonly actions: ViewActions = {},
  ) {
    this.setText(title, text);
  }

  setText(title: string, text: string): void {
    this.title = title;
    this.#lines = terminalSafe(text).split('\n');
    this.#top = Math.min(this.#top, Math.max(0, this.#lines.length - 1));
  }

  /** A line under the title: what the last action did, or why it was refused. */
  setStatus(text: string): void {
    this.#status = terminalSafe(text);
  }

  handleInput(data: string): void {
    const page = Math.max(1, this.height() - 4);
    if (matchesKey(data, 'escape') || data === 'q') this.close();
    else if (data in this.actions) this.actions[data]![1]();
    else if (matchesKey(data, 'up')) this.#top = Math.max(0, this.#top - 1);
    else if (matchesKey(data, 'down')) this.#top = Math.min(Math.max(0, this.#lines.length - 1), this.#top + 1);
    else if (matchesKey(data, 'pageUp')) this.#top = Math.max(0, this.#top - page);
    else if (matchesKey(data, 'pageDown') || data === ' ') this.#top = Math.min(Math.max(0, this.#lines.length - page), this.#top + page);
    else if (matchesKey(data, 'home')) this.#top = 0;
    else if (matchesKey(data, 'end')) this.#top = Math.max(0, this.#lines.length - page);
  }

  invalidate(): void {}

  render(width: number): string[] {
    const body = Math.max(1, this.height() - 3);
    const shown = this.#lines.slice(this.#top, this.#top + body).map((line) => truncateToWidth(line, width));
    while (shown.length < body) shown.push('');
    const keys = Object.entries(this.actions).map(([key, [label]]) => `${key} ${label}`);
    const foot = [`lines ${this.#top + 1}-${Math.min(this.#lines.length, this.#top + body)} of ${this.#lines.length}`, '↑↓ PgUp PgDn', ...keys, 'q or Esc close'].join(' · ');
    return [style.bold(truncateToWidth(this.title, width)), this.#status ? style.notice(truncateToWidth(this.#status, width)) : '', ...shown.slice(0, body - 1), style.dim(truncateToWidth(foot, width))];
  }
}
