/**
 * Repainting and suspending the TUI without losing the terminal's scrollback.
 *
 * pi-tui's forced render (`requestRender(true)`) clears the screen and the
 * scrollback (`ESC[2J ESC[H ESC[3J`) and prints every line again. Ctrl+L here
 * redraws only the rows on screen, in place: the lines of the viewport are
 * marked as unknown in pi-tui's record of what the terminal shows, so its
 * differential render rewrites exactly those rows (each cleared first).
 * After Ctrl+Z and `fg` the shell has printed below the TUI: the screen is
 * scrolled clean first (what the shell printed moves into the scrollback,
 * with everything before it) and the viewport is painted the same way.
 */
import type { TUI } from '@mariozechner/pi-tui';

/** pi-tui 0.73.1's record of the screen (private fields this module resets). */
interface RenderState {
  previousLines: string[];
  previousViewportTop: number;
  previousHeight: number;
  hardwareCursorRow: number;
  cursorRow: number;
  render(width: number): string[];
}

/** A line no component renders (a NUL is stripped by terminals and never sent by pi-tui), so every marked row differs. */
const UNKNOWN = '\u0000';

/**
 * Redraws the rows on screen. With `foreignOutput` (after a suspend), the
 * terminal's cursor is somewhere below the TUI's last line: the screen is
 * first scrolled blank and the cursor parked on its last row.
 */
export function repaintViewport(tui: TUI, { foreignOutput = false } = {}): void {
  const state = tui as unknown as RenderState;
  const height = tui.terminal.rows;
  if (foreignOutput) {
    // Scroll whatever the screen shows into the scrollback; the cursor ends on the last row of a blank screen.
    tui.terminal.write(`${'\r\n'.repeat(height)}\r`);
    const total = state.previousLines.length;
    state.previousViewportTop = Math.max(0, total - height);
    state.hardwareCursorRow = state.previousViewportTop + height - 1;
    state.cursorRow = Math.max(0, total - 1);
  }
  const top = state.previousViewportTop;
  state.previousLines = state.previousLines.map((line, index) => (index >= top ? UNKNOWN : line));
  tui.requestRender();
}

/**
 * Ctrl+Z on POSIX: gives the terminal back (cooked mode, cursor shown),
 * stops the process group as the shell's job control expects, and on
 * SIGCONT takes the terminal again and repaints. While stopped, nothing
 * runs; the socket stays open (the gateway does not notice a stopped client).
 */
export function suspend(tui: TUI, onResume: () => void): boolean {
  if (process.platform === 'win32') return false;
  // Keeps the event loop alive across the stop; a SIGINT typed at the shell before `fg` is not a quit.
  const keepAlive = setInterval(() => undefined, 2 ** 30);
  const ignoreInterrupt = (): void => undefined;
  process.on('SIGINT', ignoreInterrupt);
  const restore = (): void => {
    clearInterval(keepAlive);
    process.removeListener('SIGINT', ignoreInterrupt);
  };
  process.once('SIGCONT', () => {
    restore();
    tui.start();
    repaintViewport(tui, { foreignOutput: true });
    onResume();
  });
  try {
    tui.stop();
    process.kill(0, 'SIGTSTP');
  } catch (error) {
    restore();
    tui.start();
    throw error;
  }
  return true;
}
