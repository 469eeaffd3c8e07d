/**
 * A list to choose from, over the chat: the model and thinking pickers, the
 * tools inventory, the agents roster. ↑↓ move, typing filters (literal,
 * ignoring case), Enter picks, Escape closes; an item may carry more keys
 * (`keys`), e.g. `c` to cancel an agent. No text cursor shows while it is
 * open: the editor is not focused.
 */
import { matchesKey, truncateToWidth, type Component, type Focusable } from '@mariozechner/pi-tui';
import { terminalSafe } from '../../core/terminal-text.js';
import { style } from './chat-view.js';

export interface PickerItem {
  /** What a pick answers. */
  value: string;
  label: string;
  /** Dimmed after the label. */
  detail?: string;
  /** Marked with `*` (the current model, an active skill, ...). */
  current?: boolean;
}

export interface PickerOptions {
  title: string;
  items: PickerItem[];
  height(): number;
  pick(item: PickerItem): void;
  close(): void;
  /** Extra one-letter keys on the selected item, listed in the footer: `{ c: ['cancel', (item) => ...] }`. Typing then no longer filters. */
  keys?: Record<string, [label: string, run: (item: PickerItem) => void]>;
  /** Typing filters the list (default true); the list starts on the current item, else the first. */
  filterable?: boolean;
}

export class Picker implements Component, Focusable {
  focused = false;
  #items: PickerItem[];
  #filter = '';
  #selected: number;
  #status = '';

  constructor(private readonly options: PickerOptions) {
    this.#items = options.items;
    this.#selected = Math.max(0, options.items.findIndex((item) => item.current));
  }

  /** Replaces the items (a refreshed roster), keeping the selection on the same value where it still exists. */
  setItems(items: PickerItem[]): void {
    const value = this.#shown()[this.#selected]?.value;
    this.#items = items;
    this.#selected = Math.max(0, this.#shown().findIndex((item) => item.value === value));
  }

  setStatus(text: string): void {
    this.#status = text;
  }

  #shown(): PickerItem[] {
    const needle = this.#filter.toLowerCase();
    return needle ? this.#items.filter((item) => `${item.label} ${item.detail ?? ''}`.toLowerCase().includes(needle)) : this.#items;
  }

  handleInput(data: string): void {
    const shown = this.#shown();
    const item = shown[this.#selected];
    const page = Math.max(1, this.options.height() - 4);
    if (matchesKey(data, 'escape')) {
      if (this.#filter) this.#filter = '';
      else this.options.close();
    } else if (matchesKey(data, 'enter')) {
      if (item) this.options.pick(item);
    } else if (matchesKey(data, 'up')) this.#selected = Math.max(0, this.#selected - 1);
    else if (matchesKey(data, 'down')) this.#selected = Math.min(Math.max(0, shown.length - 1), this.#selected + 1);
    else if (matchesKey(data, 'pageUp')) this.#selected = Math.max(0, this.#selected - page);
    else if (matchesKey(data, 'pageDown')) this.#selected = Math.min(Math.max(0, shown.length - 1), this.#selected + page);
    else if (this.options.keys && data in this.options.keys) {
      if (item) this.options.keys[data]![1](item);
    } else if (this.options.keys && data === 'q') this.options.close();
    else if (matchesKey(data, 'backspace')) {
      this.#filter = [...this.#filter].slice(0, -1).join('');
      this.#selected = 0;
    } else if (this.options.filterable !== false && data.length === 1 && data >= ' ' && data !== '\x7f') {
      this.#filter += data;
      this.#selected = 0;
    }
  }

  invalidate(): void {}

  render(width: number): string[] {
    const shown = this.#shown();
    const body = Math.max(1, this.options.height() - 3);
    const first = Math.max(0, Math.min(this.#selected - Math.floor(body / 2), shown.length - body));
    const lines = shown.slice(first, first + body).map((item, i) => {
      const selected = first + i === this.#selected;
      const text = truncateToWidth(`${selected ? '›' : ' '}${item.current ? '*' : ' '} ${terminalSafe(item.label)}${item.detail ? `  ${style.dim(terminalSafe(item.detail))}` : ''}`, width);
      return selected ? style.bold(style.user(text)) : text;
    });
    if (!lines.length) lines.push(style.dim(this.#filter ? `nothing matches "${terminalSafe(this.#filter)}"` : '(none)'));
    while (lines.length < body) lines.push('');
    const head = `${this.options.title}${this.#filter ? ` · filter: ${terminalSafe(this.#filter)}` : ''} · ${shown.length} of ${this.#items.length}${this.#status ? ` · ${this.#status}` : ''}`;
    const extra = Object.entries(this.options.keys ?? {}).map(([key, [label]]) => `${key} ${label}`);
    const foot = ['↑↓ select', 'Enter pick', ...extra, this.options.filterable === false ? '' : 'type to filter', 'Esc close'].filter(Boolean).join(' · ');
    return [style.bold(truncateToWidth(head, width)), ...lines, style.dim(truncateToWidth(foot, width))];
  }
}
