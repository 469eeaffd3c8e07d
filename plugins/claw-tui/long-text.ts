/**
 * Text that may be very long and grows at its end (a streaming reply of
 * megabytes): it is wrapped in pieces of about LIMITS.tuiTextPieceChars, each
 * wrapped once and cached, so a render re-wraps only the last piece instead
 * of the whole text. A piece ends at a line break where the text has one
 * (else at a space), so the lines shown are the text's own lines.
 */
import { Text, type Component } from '@mariozechner/pi-tui';
import { LIMITS } from '../../core/limits.js';

export class LongText implements Component {
  readonly #look: (text: string) => string;
  readonly #pieces: Text[] = [];
  readonly #tail = new Text('', 1, 0);
  readonly #prefix: string;
  #rest = '';
  #stale = false;

  /** `look` styles (and makes safe) each piece; `prefix` (already styled) goes before the first one. */
  constructor(look: (text: string) => string, prefix = '') {
    this.#look = look;
    this.#prefix = prefix;
  }

  get empty(): boolean {
    return this.#pieces.length === 0 && this.#rest === '';
  }

  append(text: string): void {
    this.#rest += text;
    this.#stale = true;
    while (this.#rest.length > LIMITS.tuiTextPieceChars) this.#seal();
  }

  invalidate(): void {
    for (const piece of this.#pieces) piece.invalidate();
    this.#tail.invalidate();
  }

  render(width: number): string[] {
    if (this.empty) return [];
    if (this.#stale) {
      this.#stale = false;
      this.#tail.setText(`${this.#pieces.length === 0 ? this.#prefix : ''}${this.#look(this.#rest)}`);
    }
    const lines = this.#pieces.flatMap((piece) => piece.render(width));
    if (this.#rest) lines.push(...this.#tail.render(width));
    return lines;
  }

  /** Moves the first piece of what is not sealed yet into a wrapped piece of its own. */
  #seal(): void {
    const window = this.#rest.slice(0, LIMITS.tuiTextPieceChars);
    const lineEnd = window.lastIndexOf('\n');
    // At a line break the break is the piece's end (its next line starts the next piece); else after a space, else anywhere.
    const cut = lineEnd > 0 ? lineEnd : window.lastIndexOf(' ') + 1 || window.length;
    this.#pieces.push(new Text(`${this.#pieces.length === 0 ? this.#prefix : ''}${this.#look(this.#rest.slice(0, cut))}`, 1, 0));
    this.#rest = this.#rest.slice(lineEnd > 0 ? cut + 1 : cut);
  }
}
