/**
 * Text from tools, MCP servers and models, made safe to print on a person's
 * terminal. Such text may carry escape sequences that set the window title,
 * clear the screen, write the clipboard or hide what follows, and
 * bidirectional controls that make a terminal show characters in another
 * order than they are (`invoice\u202Egpj.exe` reads as `invoiceexe.jpg`);
 * every human renderer passes what it prints through `terminalSafe`. JSON
 * output needs none of this: JSON.stringify already escapes control characters.
 */

// C0 controls but tab and newline, a carriage return not followed by a newline, DEL and the C1 controls (0x80-0x9f, e.g. CSI 0x9b).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/g;

/**
 * The bidirectional formatting characters, as the body of a regex character
 * class: embeddings and overrides (U+202A-U+202E), isolates (U+2066-U+2069)
 * and the marks LRM, RLM and ALM. Every check for them builds on this one list.
 */
export const BIDI_CONTROLS = '\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c';
const BIDI = new RegExp(`[${BIDI_CONTROLS}]`, 'g');

/** `text` with each terminal control character shown as a visible `\xNN` (bidi controls `\uNNNN`) escape; tabs and line ends are kept. */
export function terminalSafe(text: string): string {
  return text
    .replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .replace(BIDI, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
