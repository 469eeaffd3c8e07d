/** Interactive `xdog agent chat` on a real TTY, driven through tmux. */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

const session = `xdog-e2e-${process.pid}`;
const tmux = (...args: string[]): string => execFileSync('tmux', args, { encoding: 'utf8' });
const screen = (): string => tmux('capture-pane', '-t', session, '-p');

/** Waits (bounded) until the screen shows `text`. */
async function waitFor(text: string): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const shown = screen();
    if (shown.includes(text)) return shown;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the screen never showed ${JSON.stringify(text)}:\n${screen()}`);
}

let hasTmux = true;
try {
  execFileSync('tmux', ['-V']);
} catch {
  hasTmux = false;
}

afterEach(() => {
  try {
    tmux('kill-session', '-t', session);
  } catch {
    // already gone
  }
});

describe.skipIf(!hasTmux)('xdog agent chat on a TTY', { timeout: 120_000 }, () => {
  it('streams answers, takes /steer and /follow-up mid-run, aborts on Ctrl+C and exits on the second', async () => {
    const root = tempDir('xdog-e2e-tty-');
    writeTree(root, {
      'script.json': {
        responses: [{ delayMs: 1500, text: 'first answer' }, { text: 'saw the steer' }, { text: 'did the follow-up' }, { delayMs: 60_000, text: 'never shown' }, { text: 'after the abort' }],
      },
    });
    const env = `XDG_CONFIG_HOME=${root}/c XDG_DATA_HOME=${root}/d XDOG_FAUX_SCRIPT=${root}/script.json OCLIF_SKIP_NEW_VERSION_CHECK=1`;
    const command = `cd ${root} && env ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} agent chat faux/demo --no-tools; echo EXIT=$?; sleep 60`;
    tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '40', command);
    await waitFor('xdog chat with faux/demo');

    tmux('send-keys', '-t', session, 'go', 'Enter');
    await waitFor('> go');
    tmux('send-keys', '-t', session, '/steer also this', 'Enter');
    tmux('send-keys', '-t', session, '/follow-up and then', 'Enter');
    const afterRun = await waitFor('did the follow-up');
    const order = ['first answer', '[steer] also this', 'saw the steer', '[follow-up] and then', 'did the follow-up'].map((text) => afterRun.indexOf(text));
    expect(order.every((at, index) => at >= 0 && (index === 0 || at > order[index - 1]!))).toBe(true);

    tmux('send-keys', '-t', session, 'take forever', 'Enter');
    await waitFor('> take forever');
    tmux('send-keys', '-t', session, 'C-c');
    await waitFor('(aborted)');
    tmux('send-keys', '-t', session, 'again', 'Enter');
    await waitFor('after the abort');
    tmux('send-keys', '-t', session, 'C-c');
    const end = await waitFor('EXIT=');
    expect(end).toContain('EXIT=0');
    expect(end).not.toContain('never shown');
  });
});
