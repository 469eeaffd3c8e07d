/**
 * What the TUI's dialogs that wait for a person with a deadline share (an
 * extension's dialog, an MCP server's elicitation): the seconds left, the
 * header line that says who asks, editing a one-line text answer, and the
 * key hint line.
 */
import { matchesKey, truncateToWidth } from '@mariozechner/pi-tui';
import { style } from './chat-view.js';

/** Whole seconds until `expiresAt` (epoch ms), never below 0. */
export function secondsLeft(expiresAt: number): number {
  return Math.max(0, Math.ceil((expiresAt - Date.now()) / 1000));
}

/** The bold first line of a dialog: who asks, and the time left to answer. */
export function dialogHeader(who: string, expiresAt: number, width: number, what = ''): string {
  return style.bold(truncateToWidth(`${who} asks (${what ? `${what}, ` : ''}${secondsLeft(expiresAt)}s left)`, width));
}

/** The dim last line of a dialog: its keys. */
export function dialogKeys(keys: string, width: number): string {
  return style.dim(truncateToWidth(keys, width));
}

/**
 * A key typed into a one-line answer: the new text, or undefined when the key
 * is no edit (the dialog handles it). Printable text only (a paste too):
 * control sequences are never typed into an answer.
 */
export function typeInto(text: string, data: string): string | undefined {
  if (matchesKey(data, 'backspace')) return [...text].slice(0, -1).join('');
  if ([...data].some((char) => char < ' ' || char === '\x7f')) return undefined;
  return text + data;
}

/** Redraws a dialog every second, for its seconds left; clear the timer when it closes. */
export function redrawEverySecond(render: () => void): NodeJS.Timeout {
  const timer = setInterval(render, 1000);
  timer.unref();
  return timer;
}

/** The cursor drawn after the text of the field being typed in (and nowhere else). */
export const TEXT_CURSOR = '▏';
