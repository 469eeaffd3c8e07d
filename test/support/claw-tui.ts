/** Running `xdog claw tui` in tmux for the e2e tests, and waiting for what its screen shows. */
import path from 'node:path';
import type { ClawSandbox } from './claw.js';
import { until } from './claw.js';
import { repoRoot } from './cli.js';
import type { tmuxSession } from './tmux.js';

type Tty = ReturnType<typeof tmuxSession>;

/** Starts the TUI of `sandbox` in `tty` (no X or Wayland display, so /copy uses OSC 52, which tmux keeps) and waits until it is online. */
export async function startClawTui(tty: Tty, sandbox: ClawSandbox, size = { width: 140, height: 40 }): Promise<void> {
  const env = Object.entries({ ...sandbox.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1' })
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  tty.start(`cd ${sandbox.root} && env -u DISPLAY -u WAYLAND_DISPLAY ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} claw tui; echo EXIT=$?; sleep 120`, size);
  tty.tmux('set-option', '-s', 'set-clipboard', 'on');
  await tty.waitFor('online');
}

/** Waits until the visible screen satisfies `test` (a string it contains, or a pattern); fails with the screen. */
export async function screenShows(tty: Tty, test: string | RegExp, deadlineMs = 60_000): Promise<string> {
  const ok = (screen: string) => (typeof test === 'string' ? screen.includes(test) : test.test(screen));
  try {
    await until(() => ok(tty.screen()), `the TUI to show ${String(test)}`, deadlineMs);
  } catch (error) {
    throw new Error(`${(error as Error).message}; the screen:\n${tty.screen()}`, { cause: error });
  }
  return tty.screen();
}
