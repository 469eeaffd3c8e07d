/**
 * An extension's dialog (`select`, `input`, `confirm`) over the chat, as the
 * gateway relays it (`extension.dialog`): ↑/↓ and Enter pick an option,
 * typing and Enter answer an input, y/n a confirm; Escape cancels (the
 * extension gets its no-answer). The time left before the dialog's own
 * timeout is shown; the gateway closes it then, or when another client
 * answered first.
 */
import { matchesKey, truncateToWidth, type Component, type Focusable } from '@mariozechner/pi-tui';
import { terminalSafe } from '../../core/terminal-text.js';
import { style } from './chat-view.js';
import { dialogHeader, dialogKeys, TEXT_CURSOR, typeInto } from './dialog-parts.js';

/** The dialog as `extension.dialog` carries it. */
export interface ExtensionDialogView {
  group: string;
  dialogId: string;
  extensionId: string;
  kind: 'select' | 'input' | 'confirm';
  title: string;
  options?: string[];
  placeholder?: string;
  expiresAt: number;
}

export class ExtensionDialog implements Component, Focusable {
  focused = false;
  #selected = 0;
  #text = '';
  #done = false;

  constructor(
    readonly view: ExtensionDialogView,
    /** The answer; `null` cancels. Called once. */
    private readonly answer: (value: string | boolean | null) => void,
  ) {}

  #finish(value: string | boolean | null): void {
    if (this.#done) return;
    this.#done = true;
    this.answer(value);
  }

  handleInput(data: string): void {
    const { kind, options = [] } = this.view;
    if (matchesKey(data, 'escape')) return this.#finish(null);
    if (kind === 'confirm') {
      if (data === 'y' || data === 'Y') this.#finish(true);
      else if (data === 'n' || data === 'N') this.#finish(false);
    } else if (kind === 'select') {
      if (matchesKey(data, 'up')) this.#selected = Math.max(0, this.#selected - 1);
      else if (matchesKey(data, 'down')) this.#selected = Math.min(Math.max(0, options.length - 1), this.#selected + 1);
      else if (matchesKey(data, 'enter') && options.length) this.#finish(options[this.#selected]!);
    } else if (matchesKey(data, 'enter')) this.#finish(this.#text);
    else this.#text = typeInto(this.#text, data) ?? this.#text;
  }

  invalidate(): void {}

  render(width: number): string[] {
    const { kind, options = [], extensionId, title, placeholder } = this.view;
    const line = (text: string): string => truncateToWidth(text, width);
    const lines = [dialogHeader(`extension ${terminalSafe(extensionId)}`, this.view.expiresAt, width, kind), line(terminalSafe(title)), ''];
    if (kind === 'select') options.forEach((option, index) => lines.push(index === this.#selected ? style.bold(style.user(line(`> ${terminalSafe(option)}`))) : line(`  ${terminalSafe(option)}`)));
    else if (kind === 'input') lines.push(line(`> ${this.#text ? terminalSafe(this.#text) : style.dim(terminalSafe(placeholder ?? ''))}${TEXT_CURSOR}`));
    const keys = kind === 'select' ? '↑↓ choose · Enter picks' : kind === 'input' ? 'type the answer · Enter sends it' : 'y yes · n no';
    lines.push('', dialogKeys(`${keys} · Esc cancels (the extension gets no answer)`, width));
    return lines;
  }
}
