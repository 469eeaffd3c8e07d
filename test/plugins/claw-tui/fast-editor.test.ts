/**
 * The cached, incremental wrap of the TUI's editor: an editor with it and a
 * plain pi-tui editor, fed the same keys, lay out and navigate identically,
 * and a 20,000-character typed line stays cheap (the figure is printed, not asserted).
 */
import { Editor, TUI, type Terminal } from '@mariozechner/pi-tui';
import { describe, expect, it } from 'vitest';
import { installFastLayout } from '../../../plugins/claw-tui/fast-editor.js';
import { SilentTerminal } from '../../support/silent-terminal.js';

const plain = (text: string): string => text;
const theme = { borderColor: plain, selectList: { selectedPrefix: plain, selectedText: plain, description: plain, scrollInfo: plain, noMatch: plain } };
const editor = (): Editor => new Editor(new TUI(new SilentTerminal() as unknown as Terminal), theme);
type Internals = { layoutText(width: number): unknown; buildVisualLineMap(width: number): unknown };
const layout = (e: Editor, width: number): string => JSON.stringify([(e as unknown as Internals).layoutText(width), (e as unknown as Internals).buildVisualLineMap(width), e.getCursor()]);

describe('installFastLayout', () => {
  it('lays out and moves exactly like the plain editor through random typing, deleting and cursor moves', { timeout: 120_000 }, () => {
    const reference = editor();
    const fast = editor();
    installFastLayout(fast);
    let seed = 7;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const typed = ['a', 'b', 'c', ' ', '  ', 'é', '漢', '🙂', '-', 'xyzzy', '\t'];
    const keys = ['\x7f', '\x1b[D', '\x1b[C', '\x1b[A', '\x1b[B', '\x1b[H', '\x1b[F', '\x17', '\r'];
    for (let round = 0; round < 1200; round++) {
      const width = [10, 23, 40, 99][round % 4]!;
      const pick = random();
      const data = pick < 0.75 ? typed[Math.floor(random() * typed.length)]! : keys[Math.floor(random() * keys.length)]!;
      // Enter would submit: a line break instead, so the text grows over several lines.
      const key = data === '\r' ? '\x1b\r' : data;
      reference.handleInput(key);
      fast.handleInput(key);
      expect(layout(fast, width), `round ${round}`).toBe(layout(reference, width));
    }
    expect(fast.getText()).toBe(reference.getText());
    expect(fast.getText().length).toBeGreaterThan(300);
  });

  it('types a 20,000-character line through the TUI with every frame drawn', { timeout: 120_000 }, async () => {
    const terminal = new SilentTerminal();
    const tui = new TUI(terminal as unknown as Terminal);
    const fast = new Editor(tui, theme);
    installFastLayout(fast);
    tui.addChild(fast);
    tui.setFocus(fast);
    tui.start();
    const text = Array.from({ length: 20_000 }, (_, i) => (i % 6 === 5 ? ' ' : 'abcdefghij'[i % 10])).join('');
    const started = performance.now();
    for (let at = 0; at < text.length; at += 64) {
      for (const char of text.slice(at, at + 64)) terminal.onInput(char);
      await new Promise((resolve) => setImmediate(resolve));
    }
    tui.stop();
    expect(fast.getText()).toBe(text);
    console.log(`typed 20,000 characters in ${Math.round(performance.now() - started)} ms`);
  });
});
