/**
 * Text from tools, MCP servers and models, made safe to print on a person's
 * terminal. Such text may carry escape sequences that set the window title,
 * clear the screen, write the clipboard or hide what follows; every human
 * renderer passes what it prints through `terminalSafe`. JSON output needs
 * none of this: JSON.stringify already escapes control characters.
 */

// C0 controls but tab and newline, a carriage return not followed by a newline, DEL and the C1 controls (0x80-0x9f, e.g. CSI 0x9b).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/g;

/** `text` with each terminal control character shown as a visible `\xNN` escape; tabs and line ends are kept. */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
