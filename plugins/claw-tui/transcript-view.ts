/**
 * The transcript browser (/transcript, Alt+H): the session's whole source,
 * redacted (each message's reasoning, text, a tool's whole result and every
 * tool call's whole arguments), long lines wrapped so nothing is cut at the
 * screen's edge. A cursor line (`›`) moves with ↑/↓; `/` edits a literal,
 * case-insensitive query and n/N step through every occurrence; ←/→ jump
 * between messages; `v` marks a range of lines (start, then end), `a` takes
 * one message whole; `y` copies the range (or the message at the cursor),
 * `e` writes it to a new file; `f` toggles the full-height alternate screen;
 * `r` reads the session again. Escape ends an edit, then clears the range,
 * then closes. The view holds at most LIMITS.tuiTranscriptViewChars
 * characters and ends with a line saying so when the session has more.
 */
import { matchesKey, truncateToWidth, visibleWidth, type Component, type Focusable } from '@mariozechner/pi-tui';
import { LIMITS } from '../../core/limits.js';
import { terminalSafe } from '../../core/terminal-text.js';
import { style } from './chat-view.js';
import type { SourceEntry } from './export-formats.js';

/** The browser's text: lines, where each message starts, and whether the view limit cut it. */
export interface SourceLines {
  lines: string[];
  /** First line of each message (its heading), ascending. */
  starts: number[];
  titles: string[];
  /** Set when the source was over the view's limit: what the last line says. */
  cut?: string;
}

/** Lays the entries out as lines, each under a heading; stops at `limit` characters and says so in a last line. */
export function layoutSource(entries: readonly SourceEntry[], limit = LIMITS.tuiTranscriptViewChars): SourceLines {
  const out: SourceLines = { lines: [], starts: [], titles: [] };
  let used = 0;
  for (const [i, entry] of entries.entries()) {
    const text = terminalSafe(entry.text);
    const room = limit - used;
    out.starts.push(out.lines.length);
    out.titles.push(entry.title);
    out.lines.push(`── ${terminalSafe(entry.title)} ──`);
    out.lines.push(...(text.length > room ? text.slice(0, room) : text).split('\n'), '');
    used += Math.min(text.length, room);
    if (text.length > room) {
      const rest = entries.length - i - 1;
      out.cut = `[the view ends here: the session's source is over the transcript view's ${limit}-character limit (LIMITS.tuiTranscriptViewChars); the rest of ${entry.title}${rest ? ` and ${rest} later message(s)` : ''} are not shown. /export PATH full writes the whole session]`;
      out.lines.push(out.cut);
      break;
    }
  }
  if (!out.lines.length) out.lines.push('(the session has no messages yet)');
  return out;
}

/** One occurrence of the query: its line and where in it. */
interface Match {
  line: number;
  start: number;
  end: number;
}

/** Every non-overlapping occurrence of `query` (literal, Unicode case-insensitive). */
export function findOccurrences(lines: readonly string[], query: string): Match[] {
  if (!query) return [];
  const pattern = new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'giu');
  const found: Match[] = [];
  lines.forEach((line, index) => {
    for (const hit of line.matchAll(pattern)) found.push({ line: index, start: hit.index, end: hit.index + hit[0].length });
  });
  return found;
}

/** A row on screen: the part of a line from `start` (string offset). */
interface Row {
  start: number;
  text: string;
}

/** Cuts `line` into rows of at most `width` columns (wide characters count double). */
export function wrapRows(line: string, width: number): Row[] {
  if (!line) return [{ start: 0, text: '' }];
  if (/^[\x20-\x7e]*$/.test(line)) {
    const rows: Row[] = [];
    for (let start = 0; start < line.length; start += width) rows.push({ start, text: line.slice(start, start + width) });
    return rows;
  }
  const rows: Row[] = [];
  let start = 0;
  let columns = 0;
  let offset = 0;
  for (const char of line) {
    const w = char === '\t' ? 1 : visibleWidth(char);
    if (columns + w > width && offset > start) {
      rows.push({ start, text: line.slice(start, offset) });
      start = offset;
      columns = 0;
    }
    columns += w;
    offset += char.length;
  }
  rows.push({ start, text: line.slice(start) });
  return rows.map((row) => ({ ...row, text: row.text.replace(/\t/g, ' ') }));
}

/** Where the view's first row is: a line, and a row of its wrap. */
interface Position {
  line: number;
  row: number;
}

export interface TranscriptActions {
  /** Reads the session again (`r`). */
  refresh(): Promise<SourceEntry[]>;
  /** Copies the text; resolves to the notice that says where it went. */
  copy(text: string, what: string): Promise<string>;
  /** Writes the text to a new 0600 file; returns its path. */
  write(file: string, text: string): string;
  close(): void;
  requestRender(): void;
}

/** The gutter: the cursor line, the marked lines. */
const GUTTER = 2;
const WRAP_CACHE = 4096;

export class TranscriptBrowser implements Component, Focusable {
  focused = false;
  #source: SourceLines;
  #matches: Match[] = [];
  #match = -1;
  #query: string;
  #top: Position = { line: 0, row: 0 };
  #cursor = 0;
  /** `v`: the range's fixed end; while marking, the cursor is its other end. */
  #anchor: number | undefined;
  #marking = false;
  #rangeEnd = 0;
  #rangeLabel = '';
  /** A line being typed: the query (`/`) or the export path (`e`). */
  #editing: { kind: 'search' | 'export'; text: string } | undefined;
  #status = '';
  #width = 80;
  readonly #wraps = new Map<number, Row[]>();

  constructor(
    private readonly title: string,
    entries: readonly SourceEntry[],
    private readonly height: () => number,
    private readonly actions: TranscriptActions,
    query = '',
    /** `f`: the full-height view on the alternate screen, toggled. */
    private readonly fullscreen?: { readonly active: boolean; toggle(): void },
  ) {
    this.#source = layoutSource(entries);
    this.#query = query;
    this.#search(query);
    if (this.#source.cut) this.#status = 'the source is over the view limit: its end says what is not shown';
  }

  get matchCount(): number {
    return this.#matches.length;
  }

  get cut(): string | undefined {
    return this.#source.cut;
  }

  // ---- layout --------------------------------------------------------------------------------

  get #textWidth(): number {
    return Math.max(1, this.#width - GUTTER);
  }

  get #body(): number {
    return Math.max(1, this.height() - 2);
  }

  #rows(line: number): Row[] {
    let rows = this.#wraps.get(line);
    if (!rows) {
      if (this.#wraps.size >= WRAP_CACHE) this.#wraps.clear();
      rows = wrapRows(this.#source.lines[line] ?? '', this.#textWidth);
      this.#wraps.set(line, rows);
    }
    return rows;
  }

  #forward(from: Position, steps: number): Position {
    let { line, row } = from;
    const last = this.#source.lines.length - 1;
    for (let i = 0; i < steps; i++) {
      if (row + 1 < this.#rows(line).length) row++;
      else if (line < last) {
        line++;
        row = 0;
      } else break;
    }
    return { line, row };
  }

  #backward(from: Position, steps: number): Position {
    let { line, row } = from;
    for (let i = 0; i < steps; i++) {
      if (row > 0) row--;
      else if (line > 0) {
        line--;
        row = this.#rows(line).length - 1;
      } else break;
    }
    return { line, row };
  }

  /** The furthest the view scrolls: the last row at the bottom of the screen. */
  get #lastTop(): Position {
    const last = this.#source.lines.length - 1;
    return this.#backward({ line: last, row: this.#rows(last).length - 1 }, this.#body - 1);
  }

  #setTop(position: Position): void {
    const limit = this.#lastTop;
    this.#top = position.line > limit.line || (position.line === limit.line && position.row > limit.row) ? limit : position;
  }

  /** Scrolls so that row `row` of the cursor's line is on screen, `margin` rows below the top when it has to move. */
  #reveal(row = 0, margin = 0): void {
    const target = { line: this.#cursor, row };
    const before = target.line < this.#top.line || (target.line === this.#top.line && target.row < this.#top.row);
    if (before) return this.#setTop(this.#backward(target, margin));
    let position = this.#top;
    for (let i = 0; i < this.#body; i++) {
      if (position.line === target.line && position.row === target.row) return;
      const next = this.#forward(position, 1);
      if (next.line === position.line && next.row === position.row) break;
      position = next;
    }
    this.#setTop(this.#backward(target, margin || this.#body - 1));
  }

  // ---- search, entries, range ----------------------------------------------------------------

  #search(query: string): void {
    this.#query = query;
    this.#matches = findOccurrences(this.#source.lines, query);
    this.#match = -1;
    if (!this.#matches.length) return;
    // The first occurrence at or after the cursor.
    const next = this.#matches.findIndex((match) => match.line >= this.#cursor);
    this.#match = (next < 0 ? 0 : next) - 1;
    this.#jump(1);
  }

  #jump(step: 1 | -1): void {
    if (!this.#matches.length) return;
    this.#match = (this.#match + step + this.#matches.length) % this.#matches.length;
    const match = this.#matches[this.#match]!;
    this.#cursor = match.line;
    const rows = this.#rows(match.line);
    const row = rows.findLastIndex((candidate) => candidate.start <= match.start);
    this.#reveal(Math.max(0, row), 2);
  }

  /** The message the line belongs to (its index in starts). */
  #entryAt(line: number): number {
    const { starts } = this.#source;
    let found = 0;
    for (let i = 0; i < starts.length && starts[i]! <= line; i++) found = i;
    return found;
  }

  #entryRange(entry: number): [number, number] {
    const { starts, lines } = this.#source;
    const end = (starts[entry + 1] ?? lines.length) - 1;
    return [starts[entry] ?? 0, Math.max(starts[entry] ?? 0, end)];
  }

  #moveEntry(step: 1 | -1): void {
    if (!this.#source.starts.length) return;
    const at = this.#entryAt(this.#cursor);
    const onStart = this.#source.starts[at] === this.#cursor;
    const next = step === 1 ? at + 1 : onStart ? at - 1 : at;
    if (next < 0 || next >= this.#source.starts.length) return;
    this.#cursor = this.#source.starts[next]!;
    this.#setTop({ line: this.#cursor, row: 0 });
  }

  get #range(): [number, number] | undefined {
    if (this.#anchor === undefined) return undefined;
    const end = this.#marking ? this.#cursor : this.#rangeEnd;
    return [Math.min(this.#anchor, end), Math.max(this.#anchor, end)];
  }

  #clearRange(): void {
    this.#anchor = undefined;
    this.#marking = false;
    this.#rangeLabel = '';
  }

  /** The marked lines (else the message at the cursor) as text, and what to call it. */
  #selected(): { text: string; what: string } {
    const range = this.#range;
    if (range) return { text: this.#source.lines.slice(range[0], range[1] + 1).join('\n'), what: this.#rangeLabel || `lines ${range[0] + 1}-${range[1] + 1} of the transcript` };
    const entry = this.#entryAt(this.#cursor);
    const [from, to] = this.#entryRange(entry);
    return { text: this.#source.lines.slice(from, to + 1).join('\n').trimEnd(), what: `message ${this.#source.titles[entry] ?? ''}`.trim() };
  }

  #refresh(): void {
    this.#status = 'reading the session again…';
    this.actions.refresh().then(
      (entries) => {
        this.#source = layoutSource(entries);
        this.#wraps.clear();
        this.#clearRange();
        this.#cursor = Math.min(this.#cursor, this.#source.lines.length - 1);
        this.#setTop({ line: Math.min(this.#top.line, this.#source.lines.length - 1), row: 0 });
        this.#search(this.#query);
        this.#status = this.#source.cut ? 'refreshed; the source is over the view limit: its end says what is not shown' : `refreshed · ${this.#source.starts.length} message(s)`;
        this.actions.requestRender();
      },
      (error: Error) => {
        this.#status = `the refresh failed: ${error.message}`;
        this.actions.requestRender();
      },
    );
  }

  #copy(): void {
    const { text, what } = this.#selected();
    this.actions.copy(text, what).then(
      (notice) => {
        this.#status = notice;
        this.actions.requestRender();
      },
      (error: Error) => {
        this.#status = `nothing was copied: ${error.message}`;
        this.actions.requestRender();
      },
    );
  }

  #export(file: string): void {
    const { text, what } = this.#selected();
    try {
      this.#status = `wrote the ${what} to ${this.actions.write(file, `${text}\n`)} (0600)`;
    } catch (error) {
      const hint = (error as { hint?: string }).hint;
      this.#status = `nothing was written: ${(error as Error).message}${hint ? ` (${hint})` : ''}`;
    }
  }

  // ---- keys ----------------------------------------------------------------------------------

  #editKey(data: string): void {
    const editing = this.#editing!;
    if (matchesKey(data, 'escape')) this.#editing = undefined;
    else if (matchesKey(data, 'enter')) {
      this.#editing = undefined;
      if (editing.kind === 'search') {
        this.#search(editing.text);
        this.#status = editing.text && !this.#matches.length ? `"${editing.text}" is not in the transcript` : '';
      } else if (editing.text.trim()) this.#export(editing.text.trim());
      else this.#status = 'no file was named; nothing was written';
    } else if (matchesKey(data, 'backspace')) editing.text = editing.text.slice(0, -1);
    else if (!data.startsWith('\x1b') && data >= ' ') editing.text += data.replace(/[\r\n]/g, '');
  }

  handleInput(data: string): void {
    if (this.#editing) return this.#editKey(data);
    const last = this.#source.lines.length - 1;
    this.#status = this.#source.cut && this.#status.startsWith('the source is over') ? this.#status : '';
    if (matchesKey(data, 'escape')) {
      if (this.#anchor !== undefined) this.#clearRange();
      else this.#close();
    } else if (data === 'q') this.#close();
    else if (data === '/') this.#editing = { kind: 'search', text: '' };
    else if (data === 'n') this.#jump(1);
    else if (data === 'N') this.#jump(-1);
    else if (matchesKey(data, 'down') || data === 'j') {
      this.#cursor = Math.min(last, this.#cursor + 1);
      this.#reveal();
    } else if (matchesKey(data, 'up') || data === 'k') {
      this.#cursor = Math.max(0, this.#cursor - 1);
      this.#reveal();
    } else if (matchesKey(data, 'pageDown') || data === ' ') {
      this.#setTop(this.#forward(this.#top, this.#body));
      this.#cursor = this.#top.line;
    } else if (matchesKey(data, 'pageUp')) {
      this.#setTop(this.#backward(this.#top, this.#body));
      this.#cursor = this.#top.line;
    } else if (matchesKey(data, 'home') || data === 'g') {
      this.#cursor = 0;
      this.#setTop({ line: 0, row: 0 });
    } else if (matchesKey(data, 'end') || data === 'G') {
      this.#cursor = last;
      this.#setTop(this.#lastTop);
    } else if (matchesKey(data, 'right')) this.#moveEntry(1);
    else if (matchesKey(data, 'left')) this.#moveEntry(-1);
    else if (data === 'v') {
      if (this.#marking) {
        this.#marking = false;
        this.#rangeEnd = this.#cursor;
      } else {
        this.#anchor = this.#cursor;
        this.#marking = true;
        this.#rangeLabel = '';
      }
    } else if (data === 'a') {
      const entry = this.#entryAt(this.#cursor);
      const [from, to] = this.#entryRange(entry);
      this.#anchor = from;
      this.#rangeEnd = to;
      this.#marking = false;
      this.#rangeLabel = `message ${this.#source.titles[entry] ?? ''}`.trim();
      this.#cursor = from;
      this.#setTop({ line: from, row: 0 });
    } else if (data === 'y') this.#copy();
    else if (data === 'e') this.#editing = { kind: 'export', text: '' };
    else if (data === 'f' && this.fullscreen) this.fullscreen.toggle();
    else if (data === 'r') this.#refresh();
  }

  #close(): void {
    this.actions.close();
  }

  invalidate(): void {
    this.#wraps.clear();
  }

  // ---- drawing -------------------------------------------------------------------------------

  /** A row with the query's occurrences marked (the current one in reverse video). */
  #paintRow(line: number, row: Row): string {
    const hits = this.#query ? this.#matches.filter((match) => match.line === line && match.end > row.start && match.start < row.start + row.text.length) : [];
    if (!hits.length) return row.text;
    let out = '';
    let at = 0;
    for (const hit of hits) {
      const from = Math.max(0, hit.start - row.start);
      const to = Math.min(row.text.length, hit.end - row.start);
      const current = this.#matches[this.#match] === hit;
      out += row.text.slice(at, from) + (current ? `\x1b[7m${row.text.slice(from, to)}\x1b[27m` : style.notice(row.text.slice(from, to)));
      at = to;
    }
    return out + row.text.slice(at);
  }

  render(width: number): string[] {
    if (width !== this.#width) {
      this.#width = width;
      this.#wraps.clear();
      this.#setTop({ line: this.#top.line, row: 0 });
    }
    const body = this.#body;
    const range = this.#range;
    const rows: string[] = [];
    let position = this.#top;
    for (let i = 0; i < body; i++) {
      const row = this.#rows(position.line)[position.row];
      if (!row) break;
      const marked = range !== undefined && position.line >= range[0] && position.line <= range[1];
      const gutter = position.line === this.#cursor && position.row === 0 ? '›' : ' ';
      const text = this.#paintRow(position.line, row);
      const heading = position.row === 0 && this.#source.starts.includes(position.line);
      rows.push(`${marked ? style.user('▌') : ' '}${gutter}${heading ? style.bold(text) : marked ? style.user(text) : text}`);
      const next = this.#forward(position, 1);
      if (next.line === position.line && next.row === position.row) break;
      position = next;
    }
    while (rows.length < body) rows.push('');
    const entry = this.#source.titles[this.#entryAt(this.#cursor)];
    const where = this.#query ? ` · "${terminalSafe(this.#query)}": ${this.#matches.length ? `${this.#match + 1}/${this.#matches.length}` : 'no match'}` : '';
    const head = `${this.title}${this.fullscreen?.active ? ' · fullscreen' : ''}${entry ? ` · at ${terminalSafe(entry)}` : ''}${where}`;
    return [style.bold(truncateToWidth(head, width)), ...rows.map((line) => truncateToWidth(line, width)), this.#footer(width, range)];
  }

  #footer(width: number, range: [number, number] | undefined): string {
    const lines = this.#source.lines.length;
    let text: string;
    if (this.#editing) {
      text = `${this.#editing.kind === 'search' ? 'search (literal, any case): ' : `write the ${this.#selected().what} to the new file: `}${terminalSafe(this.#editing.text)}▏ · Enter ${this.#editing.kind === 'search' ? 'searches' : 'writes'} · Esc cancels`;
      return truncateToWidth(style.notice(text), width);
    }
    if (range) {
      const count = range[1] - range[0] + 1;
      text = this.#marking
        ? `marking from line ${this.#anchor! + 1}: lines ${range[0] + 1}-${range[1] + 1} (${count}) · move, then v ends the range · Esc clears`
        : `selected ${this.#rangeLabel ? `${this.#rangeLabel}: ` : ''}lines ${range[0] + 1}-${range[1] + 1} (${count}) · y copy · e export · Esc clears`;
    } else text = `line ${this.#cursor + 1}/${lines} · ←→ message · / n N search · v range · a message · y copy · e export · f fullscreen · r refresh · q close`;
    return truncateToWidth(style.dim(this.#status ? `${terminalSafe(this.#status)} · ${text}` : text), width);
  }
}
