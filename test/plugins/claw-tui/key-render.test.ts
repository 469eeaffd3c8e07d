/**
 * A key's frame is drawn at once, not behind pi-tui's 16 ms frame throttle
 * (which a streaming reply keeps armed): right after a frame, a typed
 * character is on the terminal before any timer could fire.
 */
import { Editor, TUI, type Terminal } from '@mariozechner/pi-tui';
import { describe, expect, it } from 'vitest';
import { renderKeysAtOnce } from '../../../plugins/claw-tui/key-render.js';
import { SilentTerminal } from '../../support/silent-terminal.js';

const plain = (text: string): string => text;
const theme = { borderColor: plain, selectList: { selectedPrefix: plain, selectedText: plain, description: plain, scrollInfo: plain, noMatch: plain } };

/** A started TUI with a focused editor, a frame just drawn; answers what is on the terminal once the check phase ran (before any timer). */
async function typeRightAfterAFrame(patched: boolean): Promise<string> {
  const terminal = new SilentTerminal();
  const tui = new TUI(terminal as unknown as Terminal);
  if (patched) renderKeysAtOnce(tui);
  const editor = new Editor(tui, theme);
  tui.addChild(editor);
  tui.setFocus(editor);
  tui.start();
  await new Promise((resolve) => setTimeout(resolve, 50)); // the first frame
  const internals = tui as unknown as { doRender(): void; lastRenderAt: number };
  internals.doRender(); // what a streamed chunk's frame does
  internals.lastRenderAt = performance.now();
  terminal.frames.length = 0;
  terminal.onInput('Q');
  // setImmediate runs before the timers of the next loop turn: a throttled frame is not drawn yet.
  await new Promise((resolve) => setImmediate(resolve));
  const drawn = terminal.frames.join('');
  tui.stop();
  return drawn;
}

describe('renderKeysAtOnce', () => {
  it('draws the frame a key asks for on the next tick, where pi-tui alone waits for its frame throttle', async () => {
    expect(await typeRightAfterAFrame(true)).toContain('Q');
    // The control: without it the key's frame is still waiting (what the bench measured as 8-10 ms).
    expect(await typeRightAfterAFrame(false)).not.toContain('Q');
  });
});
