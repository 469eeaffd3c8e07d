/**
 * A view opted into the terminal's alternate screen (`f` in /transcript):
 * the whole height is the view's, and the main buffer, with the chat and
 * the terminal's scrollback, is left exactly as it was. While it is on,
 * pi-tui's renders paint the view instead of the chat (its record of the
 * main buffer is not touched); leaving restores the main buffer and
 * repaints the rows on screen in place, so nothing is replayed or cleared.
 */
import type { TUI } from '@mariozechner/pi-tui';
import { repaintViewport } from './repaint.js';

const ENTER = '\x1b[?1049h';
const LEAVE = '\x1b[?1049l';
const HIDE_CURSOR = '\x1b[?25l';
/** Synchronized output (terminals that lack it ignore it): a frame shows whole. */
const BEGIN_FRAME = '\x1b[?2026h';
const END_FRAME = '\x1b[?2026l';

export class AltScreen {
  #active = false;

  constructor(
    private readonly tui: TUI,
    /** The view's lines for the terminal's width and full height. */
    private readonly paint: (width: number, height: number) => string[],
  ) {}

  get active(): boolean {
    return this.#active;
  }

  enter(): void {
    if (this.#active) return;
    this.#active = true;
    this.tui.terminal.write(`${ENTER}${HIDE_CURSOR}`);
    // pi-tui keeps scheduling and coalescing renders; each one draws the view here instead.
    (this.tui as unknown as { doRender(): void }).doRender = () => this.#draw();
    this.tui.requestRender();
  }

  leave(): void {
    if (!this.#active) return;
    this.#active = false;
    delete (this.tui as unknown as { doRender?: unknown }).doRender;
    this.tui.terminal.write(LEAVE);
    repaintViewport(this.tui);
  }

  #draw(): void {
    const { columns, rows } = this.tui.terminal;
    const lines = this.paint(columns, rows).slice(0, rows);
    // Each row is addressed and cleared to its end, so nothing scrolls and no old text stays.
    const body = Array.from({ length: rows }, (_, row) => `\x1b[${row + 1};1H${lines[row] ?? ''}\x1b[0m\x1b[K`).join('');
    this.tui.terminal.write(`${BEGIN_FRAME}${body}${HIDE_CURSOR}${END_FRAME}`);
  }
}
