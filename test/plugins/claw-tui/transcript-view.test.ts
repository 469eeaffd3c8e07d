/** The transcript browser's parts that need no terminal: the view limit, literal search, wrapping. */
import { describe, expect, it } from 'vitest';
import { visibleWidth } from '@mariozechner/pi-tui';
import { LIMITS } from '../../../core/limits.js';
import { findOccurrences, layoutSource, wrapRows } from '../../../plugins/claw-tui/transcript-view.js';

describe('transcript browser parts', () => {
  it('lays out every message whole under a heading while the source is under the limit', () => {
    const source = layoutSource([
      { title: '#1 user', text: 'hello' },
      { title: '#2 assistant', text: `[reasoning]\nthink\n[/reasoning]\n${'a'.repeat(5000)}` },
    ]);
    expect(source.cut).toBeUndefined();
    expect(source.starts).toEqual([0, 3]);
    expect(source.lines).toContain('a'.repeat(5000));
  });

  it('stops at the limit and says so in a last line naming the limit and what is not shown', () => {
    const source = layoutSource(
      [
        { title: '#1 user', text: 'x'.repeat(60) },
        { title: '#2 assistant', text: 'y'.repeat(60) },
        { title: '#3 user', text: 'z' },
      ],
      100,
    );
    expect(source.lines.join('')).toContain('y'.repeat(40));
    expect(source.lines.join('')).not.toContain('y'.repeat(41));
    expect(source.lines.join('')).not.toContain('#3 user ──');
    expect(source.cut).toMatch(/over the transcript view's 100-character limit \(LIMITS.tuiTranscriptViewChars\); the rest of #2 assistant and 1 later message\(s\) are not shown/);
    expect(source.lines.at(-1)).toBe(source.cut);
    expect(LIMITS.tuiTranscriptViewChars).toBe(16 * 1024 * 1024);
  });

  it('finds every non-overlapping occurrence literally, ignoring case (Unicode too)', () => {
    expect(findOccurrences(['aXa xa.a', 'ÉTÉ été'], 'xa')).toEqual([
      { line: 0, start: 1, end: 3 },
      { line: 0, start: 4, end: 6 },
    ]);
    expect(findOccurrences(['a.b axb'], '.')).toEqual([{ line: 0, start: 1, end: 2 }]);
    expect(findOccurrences(['ÉTÉ été'], 'été').map((hit) => hit.start)).toEqual([0, 4]);
  });

  it('wraps a long line into rows of the width, wide characters counted double, nothing lost', () => {
    const ascii = wrapRows('x'.repeat(25), 10);
    expect(ascii.map((row) => row.text)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
    const wide = wrapRows('界'.repeat(7), 6);
    expect(wide.every((row) => visibleWidth(row.text) <= 6)).toBe(true);
    expect(wide.map((row) => row.text).join('')).toBe('界'.repeat(7));
    expect(wide.map((row) => row.start)).toEqual([0, 3, 6]);
  });
});
