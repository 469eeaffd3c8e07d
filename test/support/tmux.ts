/** Driving a command on a real TTY through tmux, for the e2e tests of interactive commands. */
import { execFileSync } from 'node:child_process';

/** True when tmux is installed (tests that need it are skipped otherwise). */
export const hasTmux = ((): boolean => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

/**
 * One named tmux session: run tmux commands on it, read its screen, wait for text, end it.
 * `socket` runs it on a private tmux server (`tmux -L`), for tests that change server options or read its buffers.
 */
export function tmuxSession(name: string, socket?: string) {
  const tmux = (...args: string[]): string => execFileSync('tmux', [...(socket ? ['-L', socket] : []), ...args], { encoding: 'utf8' });
  const screen = (): string => tmux('capture-pane', '-t', name, '-p');
  return {
    tmux,
    screen,
    /** Starts `command` in a detached session of the given size. */
    start(command: string, size = { width: 160, height: 40 }): void {
      tmux('new-session', '-d', '-s', name, '-x', String(size.width), '-y', String(size.height), command);
    },
    /** Sends keys (tmux send-keys syntax: 'Enter', 'C-c', or literal text). */
    keys(...keys: string[]): void {
      tmux('send-keys', '-t', name, ...keys);
    },
    /** Waits (bounded) until the screen shows `text`; returns the screen. */
    async waitFor(text: string): Promise<string> {
      for (let i = 0; i < 300; i++) {
        const shown = screen();
        if (shown.includes(text)) return shown;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the screen never showed ${JSON.stringify(text)}:\n${screen()}`);
    },
    /** Waits until `test` holds for the screen, polling up to `deadlineMs` (generous: the machine may be loaded). */
    async until(test: (shown: string) => boolean, what: string, deadlineMs = 90_000): Promise<void> {
      const end = Date.now() + deadlineMs;
      while (!test(screen())) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}:\n${screen()}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    /** Ends the session if it still exists. */
    kill(): void {
      try {
        tmux(socket ? 'kill-server' : 'kill-session', ...(socket ? [] : ['-t', name]));
      } catch {
        // already gone
      }
    },
  };
}
