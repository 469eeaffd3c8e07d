/** Reading the clipboard for /paste: the refusal without a tool, and the bound on what is read (real Xvfb and xclip). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../core/limits.js';
import { readClipboard } from '../../../plugins/claw-tui/clipboard.js';
import { hasXClipboard, startXDisplay, type XDisplay } from '../../support/x-display.js';

/** Runs `fn` with the display variables set as given (and restored after). */
async function withDisplay<T>(env: { DISPLAY?: string; WAYLAND_DISPLAY?: string }, fn: () => Promise<T>): Promise<T> {
  const saved = { DISPLAY: process.env.DISPLAY, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY };
  for (const key of ['DISPLAY', 'WAYLAND_DISPLAY'] as const) {
    if (env[key] === undefined) delete process.env[key];
    else process.env[key] = env[key];
  }
  try {
    return await fn();
  } finally {
    for (const key of ['DISPLAY', 'WAYLAND_DISPLAY'] as const) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  }
}

describe('readClipboard', () => {
  it('without a display or a tool, says which tools it needs and what to do instead', async () => {
    await expect(withDisplay({}, () => readClipboard())).rejects.toThrow(/no clipboard tool was found: \/paste reads the clipboard with wl-paste \(Wayland, package wl-clipboard\) or xclip \(X11\)/);
  });

  describe.skipIf(!hasXClipboard)('on a private X display', () => {
    let x: XDisplay;
    beforeAll(async () => {
      x = await startXDisplay();
    });
    afterAll(() => x?.stop());

    it('reads text, and refuses text over the draft limit instead of cutting it', async () => {
      x.copy('UTF8_STRING', 'héllo');
      await expect(withDisplay({ DISPLAY: x.display }, () => readClipboard())).resolves.toEqual({ kind: 'text', text: 'héllo' });
      x.copy('UTF8_STRING', 'x'.repeat(LIMITS.tuiDraftBytes + 1));
      await expect(withDisplay({ DISPLAY: x.display }, () => readClipboard())).rejects.toThrow(`the clipboard's text is over ${LIMITS.tuiDraftBytes} bytes; nothing was pasted`);
    });
  });
});
