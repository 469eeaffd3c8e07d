import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../core/index.js';

describe('terminalSafe', () => {
  it('shows escape sequences, bells, C1 controls, DEL and stray carriage returns as visible escapes', () => {
    expect(terminalSafe('\u001b]0;title\u0007\u001b[2J\u009b1m\u007fa\rb')).toBe('\\x1b]0;title\\x07\\x1b[2J\\x9b1m\\x7fa\\x0db');
  });

  it('keeps tabs, newlines, CRLF line ends and ordinary Unicode', () => {
    expect(terminalSafe('a\tb\r\nc\né ✓ 日本')).toBe('a\tb\r\nc\né ✓ 日本');
  });

  it('shows bidirectional controls as visible escapes, so text cannot reorder what follows it', () => {
    expect(terminalSafe('invoice\u202Egpj.exe')).toBe('invoice\\u202egpj.exe');
    const controls = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C'];
    expect(terminalSafe(controls.join(''))).toBe('\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c');
    // Right-to-left text itself and the neighbouring joiners stay as they are.
    expect(terminalSafe('שלום مرحبا a\u200Db')).toBe('שלום مرحبا a\u200Db');
  });
});
