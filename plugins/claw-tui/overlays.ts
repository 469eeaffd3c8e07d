/**
 * The TUI's two full views over the chat: a pager (the transcript, a
 * read-only session, /tree, long lists) with literal case-insensitive search,
 * and the session browser. Both close with Escape or q.
 */
import { matchesKey, truncateToWidth, type Component, type Focusable } from '@mariozechner/pi-tui';
import { terminalSafe } from '../../core/terminal-text.js';
import { style } from './chat-view.js';

/** Line numbers (0-based) of `lines` that contain `query`, ignoring case; literal, never a pattern. */
export function findMatches(lines: readonly string[], query: string): number[] {
  const needle = query.toLowerCase();
  if (!needle) return [];
  const found: number[] = [];
  lines.forEach((line, index) => {
    if (line.toLowerCase().includes(needle)) found.push(index);
  });
  return found;
}

/** A scrollable text view: arrows/PgUp/PgDn scroll, n/N jump between matches, Escape or q closes. */
export class Pager implements Component, Focusable {
  focused = false;
  readonly #lines: string[];
  readonly #matches: number[];
  #top = 0;
  #match = -1;

  constructor(
    private readonly title: string,
    text: string,
    private readonly height: () => number,
    private readonly close: () => void,
    private readonly query = '',
  ) {
    this.#lines = terminalSafe(text).split('\n');
    this.#matches = findMatches(this.#lines, query);
    if (this.#matches.length) this.#jump(1);
  }

  get matchCount(): number {
    return this.#matches.length;
  }

  #jump(step: 1 | -1): void {
    if (!this.#matches.length) return;
    this.#match = (this.#match + step + this.#matches.length) % this.#matches.length;
    this.#top = Math.max(0, this.#matches[this.#match]! - 2);
  }

  handleInput(data: string): void {
    const page = Math.max(1, this.height() - 3);
    if (matchesKey(data, 'escape') || data === 'q') this.close();
    else if (data === 'n') this.#jump(1);
    else if (data === 'N') this.#jump(-1);
    else if (matchesKey(data, 'up') || data === 'k') this.#top = Math.max(0, this.#top - 1);
    else if (matchesKey(data, 'down') || data === 'j') this.#top = Math.min(Math.max(0, this.#lines.length - 1), this.#top + 1);
    else if (matchesKey(data, 'pageUp')) this.#top = Math.max(0, this.#top - page);
    else if (matchesKey(data, 'pageDown') || data === ' ') this.#top = Math.min(Math.max(0, this.#lines.length - page), this.#top + page);
  }

  invalidate(): void {}

  render(width: number): string[] {
    const body = Math.max(1, this.height() - 2);
    const current = this.#match >= 0 ? this.#matches[this.#match] : undefined;
    const needle = this.query.toLowerCase();
    const shown = this.#lines.slice(this.#top, this.#top + body).map((line, i) => {
      const hit = needle && line.toLowerCase().includes(needle);
      const text = truncateToWidth(line, width);
      return this.#top + i === current ? style.bold(style.notice(text)) : hit ? style.notice(text) : text;
    });
    while (shown.length < body) shown.push('');
    const where = this.query ? ` · "${terminalSafe(this.query)}": ${this.#matches.length ? `${this.#match + 1}/${this.#matches.length}` : 'no match'}` : '';
    const head = style.bold(truncateToWidth(`${this.title}${where}`, width));
    const foot = style.dim(truncateToWidth(`lines ${this.#top + 1}-${Math.min(this.#lines.length, this.#top + body)} of ${this.#lines.length} · ↑↓ PgUp PgDn · n/N next/previous match · q or Esc close`, width));
    return [head, ...shown, foot];
  }
}

/** One row of the session browser. */
export interface SessionRow {
  id: string;
  name: string | null;
  summary: string | null;
  messageCount: number;
  updatedAt: number;
  active: boolean;
}

export interface BrowserActions {
  search(query: string): Promise<SessionRow[]>;
  activate(row: SessionRow): void;
  view(row: SessionRow): void;
  create(): void;
  close(): void;
  /** → : the selected session's entry tree (← or Escape there comes back). */
  tree?(row: SessionRow): void;
}

/** The session browser: ↑↓ select, / search (Enter runs it), Enter activate, n new, v view read-only, r refresh, → tree, Esc close. */
export class SessionBrowser implements Component, Focusable {
  focused = false;
  #rows: SessionRow[];
  #selected = 0;
  #searching = false;
  #query = '';
  #status = '';

  constructor(
    rows: SessionRow[],
    private readonly height: () => number,
    private readonly actions: BrowserActions,
    private readonly requestRender: () => void,
  ) {
    this.#rows = rows;
  }

  /** Runs the current query again (`r`, or Enter after `/`); the selection stays on the same session where it still exists. */
  #load(status: string): void {
    const id = this.#rows[this.#selected]?.id;
    this.#status = status;
    this.actions.search(this.#query).then(
      (rows) => {
        this.#rows = rows;
        this.#selected = Math.max(0, rows.findIndex((row) => row.id === id));
        this.#status = status === 'refreshing…' ? `refreshed · ${rows.length} session(s)` : '';
        this.requestRender();
      },
      (error: Error) => {
        this.#status = error.message;
        this.requestRender();
      },
    );
  }

  handleInput(data: string): void {
    if (this.#searching) {
      if (matchesKey(data, 'escape')) this.#searching = false;
      else if (matchesKey(data, 'enter')) {
        this.#searching = false;
        this.#load('searching…');
      } else if (matchesKey(data, 'backspace')) this.#query = this.#query.slice(0, -1);
      else if (data.length === 1 && data >= ' ') this.#query += data;
      return;
    }
    const row = this.#rows[this.#selected];
    if (matchesKey(data, 'escape') || data === 'q') this.actions.close();
    else if (data === '/') {
      this.#searching = true;
      this.#query = '';
    } else if (matchesKey(data, 'up') || data === 'k') this.#selected = Math.max(0, this.#selected - 1);
    else if (matchesKey(data, 'down') || data === 'j') this.#selected = Math.min(Math.max(0, this.#rows.length - 1), this.#selected + 1);
    else if (matchesKey(data, 'pageUp')) this.#selected = Math.max(0, this.#selected - Math.max(1, this.height() - 4));
    else if (matchesKey(data, 'pageDown')) this.#selected = Math.min(Math.max(0, this.#rows.length - 1), this.#selected + Math.max(1, this.height() - 4));
    else if (data === 'n') this.actions.create();
    else if (data === 'r') this.#load('refreshing…');
    else if (row && matchesKey(data, 'right') && this.actions.tree) this.actions.tree(row);
    else if (row && data === 'v') this.actions.view(row);
    else if (row && matchesKey(data, 'enter')) this.actions.activate(row);
  }

  invalidate(): void {}

  render(width: number): string[] {
    const body = Math.max(1, this.height() - 3);
    const first = Math.max(0, Math.min(this.#selected - Math.floor(body / 2), this.#rows.length - body));
    const lines = this.#rows.slice(first, first + body).map((row, i) => {
      const label = `${row.active ? '*' : ' '} ${row.id.slice(0, 8)}  ${String(row.messageCount).padStart(4)} msgs  ${new Date(row.updatedAt).toISOString().slice(0, 16).replace('T', ' ')}  ${terminalSafe(row.name ?? row.summary ?? '(empty)')}`;
      const text = truncateToWidth(label, width);
      return first + i === this.#selected ? style.bold(style.user(text)) : text;
    });
    if (!lines.length) lines.push(style.dim('no sessions'));
    while (lines.length < body) lines.push('');
    const search = this.#searching ? `search: ${terminalSafe(this.#query)}▏ (Enter runs it, Esc cancels)` : this.#query ? `results for "${terminalSafe(this.#query)}"` : 'sessions, newest first';
    return [
      style.bold(truncateToWidth(`${search}${this.#status ? ` · ${this.#status}` : ''}`, width)),
      ...lines,
      style.dim(truncateToWidth('↑↓ select · Enter activate · / search · r refresh · → tree · n new · v view read-only · Esc close', width)),
    ];
  }
}

/** A pager one level down (a session's tree from the browser): ← goes back, as q and Escape do. */
export class BackPager implements Component, Focusable {
  focused = false;

  constructor(
    private readonly pager: Pager,
    private readonly back: () => void,
  ) {}

  handleInput(data: string): void {
    if (matchesKey(data, 'left')) this.back();
    else this.pager.handleInput(data);
  }

  invalidate(): void {}

  render(width: number): string[] {
    return this.pager.render(width);
  }
}
