import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../core/index.js';

describe('terminalSafe', () => {
  it('shows escape sequences, bells, C1 controls, DEL and stray carriage returns as visible escapes', () => {
    expect(terminalSafe('\u001b]0;title\u0007\u001b[2J\u009b1m\u007fa\rb')).toBe('\\x1b]0;title\\x07\\x1b[2J\\x9b1m\\x7fa\\x0db');
  });

  it('keeps tabs, newlines, CRLF line ends and ordinary Unicode', () => {
    expect(terminalSafe('a\tb\r\nc\né ✓ 日本')).toBe('a\tb\r\nc\né ✓ 日本');
  });
});
