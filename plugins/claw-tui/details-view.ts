/**
 * Ctrl+O: the details viewer of recent tool calls (their whole arguments
 * and results) and the model's reasoning. The chat records each one as it
 * appears (bounded: the oldest goes past `LIMITS.tuiDetailEntries`); the
 * viewer opens on the newest, ←/→ move between entries, ↑/↓ and PgUp/PgDn
 * scroll the one shown, q or Escape closes.
 */
import { matchesKey, type Component, type Focusable } from '@mariozechner/pi-tui';
import { LIMITS } from '../../core/limits.js';
import { Pager } from './overlays.js';

/** One entry of the viewer; `text` is read when it is shown (a tool's result may arrive later). */
export interface DetailEntry {
  title: string;
  text(): string;
}

/** The chat's record of recent entries, oldest first. */
export class DetailLog {
  readonly #entries: DetailEntry[] = [];

  add(entry: DetailEntry): void {
    this.#entries.push(entry);
    // Bounded: the oldest entry leaves (the conversation itself keeps it; /transcript shows it).
    if (this.#entries.length > LIMITS.tuiDetailEntries) this.#entries.shift();
  }

  clear(): void {
    this.#entries.length = 0;
  }

  list(): readonly DetailEntry[] {
    return this.#entries;
  }
}

export class DetailsViewer implements Component, Focusable {
  focused = false;
  #at: number;
  #pager: Pager;

  constructor(
    private readonly entries: readonly DetailEntry[],
    private readonly height: () => number,
    private readonly close: () => void,
  ) {
    this.#at = entries.length - 1;
    this.#pager = this.#open();
  }

  #open(): Pager {
    const entry = this.entries[this.#at]!;
    return new Pager(`details ${this.#at + 1}/${this.entries.length} · ${entry.title} · ←→ entries`, entry.text(), this.height, this.close);
  }

  handleInput(data: string): void {
    const step = matchesKey(data, 'left') ? -1 : matchesKey(data, 'right') ? 1 : 0;
    if (!step) return this.#pager.handleInput(data);
    const next = this.#at + step;
    if (next < 0 || next >= this.entries.length) return;
    this.#at = next;
    this.#pager = this.#open();
  }

  invalidate(): void {}

  render(width: number): string[] {
    return this.#pager.render(width);
  }
}
