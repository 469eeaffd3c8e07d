/**
 * The transcript browser of `xdog claw tui` (Alt+H, /transcript) on a real
 * terminal (tmux, a private server) against a real gateway whose scripted
 * faux model thinks and then makes a bash call with a 3,000-character
 * argument: the reasoning and the argument's tail are on screen (long lines
 * wrap, nothing is cut), `f` takes the alternate screen and gives the chat
 * back with its scrollback, `v` marks a range that `y` copies, `a` takes
 * one message whole that `e` writes to a file. Assertions are on what the
 * pane shows, tmux's own state (alternate screen, paste buffer) and the
 * written file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clawSandbox, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { runCli } from '../support/cli.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';
import { screenShows, startClawTui } from '../support/claw-tui.js';

const name = `xdog-tui-transcript-${process.pid}`;
let runs = 0;
let tty = tmuxSession(name, `${name}-0`);
let sandbox: ClawSandbox;
let gateway: GatewayProcess | undefined;

const claw = (...args: string[]) => runCli(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
const history = (): string => tty.tmux('capture-pane', '-t', name, '-p', '-S', '-');
const alternateScreen = (): string => tty.tmux('display-message', '-p', '-t', name, '#{alternate_on}').trim();
const shows = (test: string | RegExp, deadlineMs?: number): Promise<string> => screenShows(tty, test, deadlineMs);
const lastRow = (): string => tty.screen().trimEnd().split('\n').at(-1) ?? '';

async function openTui(): Promise<void> {
  tty = tmuxSession(name, `${name}-${++runs}`);
  await startClawTui(tty, sandbox, { width: 120, height: 40 });
}

describe.skipIf(!hasTmux)('xdog claw tui: the transcript browser', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    sandbox = clawSandbox();
    gateway = await startGateway(sandbox);
    const sent = claw('send', 'bigcall 3000');
    expect(sent.status, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('done: ran-the-big-call');
  }, 120_000);
  afterEach(() => tty.kill());
  afterAll(async () => {
    await gateway?.stop();
  });

  it('Alt+H shows the reasoning and the whole tool-call argument, wrapped to its tail; / finds it', async () => {
    await openTui();
    tty.keys('M-h');
    await shows('transcript (redacted; reasoning, whole tool arguments and results)');
    // The 3,000-character command wraps over many rows; its end is on screen, not cut at the edge.
    const screen = await shows('TAIL-OF-ARGUMENT; echo ran-the-big-call');
    expect(screen).toContain('[reasoning]');
    expect(screen).toContain('REASONING-BEFORE-THE-CALL');
    expect(screen.split('\n').filter((row) => /^ {2}x{100,}/.test(row)).length).toBeGreaterThan(10);
    // The tool's result follows, and the model's answer to it.
    tty.keys('End');
    await shows(/── #3 tool result \(bash\) ──\n {2}ran-the-big-call[^]*── #4 assistant ──\n {2}done: ran-the-big-call/);
    tty.keys('/');
    tty.keys('-l', 'tail-of-ARGUMENT');
    await shows('search (literal, any case): tail-of-ARGUMENT');
    tty.keys('Enter');
    await shows('"tail-of-ARGUMENT": 1/1');
  });

  it('f takes the alternate screen at full height and gives the chat back with its scrollback', async () => {
    await openTui();
    tty.keys('/transcript', 'Enter');
    await shows('transcript (redacted;');
    expect(alternateScreen()).toBe('0');
    tty.keys('f');
    await shows('· fullscreen');
    expect(alternateScreen()).toBe('1');
    // Full height: the browser's own key line is the last row; the chat's footer is not on screen.
    await until(() => /^line 1\/\d+ · .* · q close$/.test(lastRow()), () => `the browser's last row at the bottom:\n${tty.screen()}`, 60_000);
    expect(tty.screen()).not.toContain('online');
    tty.keys('f');
    await until(() => alternateScreen() === '0', 'tmux to leave the alternate screen', 60_000);
    await until(() => !tty.screen().includes('· fullscreen'), () => `the fullscreen view to go:\n${tty.screen()}`, 60_000);
    tty.keys('q');
    await until(() => lastRow().includes('online'), () => `the chat back:\n${tty.screen()}`, 60_000);
    // The chat (and what it printed before) is still in the terminal's history.
    expect(history()).toContain('done: ran-the-big-call');
  });

  it('v marks a range of lines that y copies; a takes one message whole that e writes to a new file', async () => {
    await openTui();
    tty.keys('M-h');
    await shows('transcript (redacted;');
    tty.keys('Home', 'v', 'Down', 'Down');
    await shows('marking from line 1: lines 1-3 (3)');
    tty.keys('v');
    await shows('selected lines 1-3 (3) · y copy · e export');
    tty.keys('y');
    await shows('copied the lines 1-3 of the transcript through the terminal (OSC 52');
    await until(() => tty.tmux('show-buffer').startsWith('── #1 user ──\nbigcall 3000'), () => `tmux to get the copied lines:\n${tty.tmux('show-buffer')}`, 60_000);
    tty.keys('Escape');
    await until(() => !tty.screen().includes('selected lines'), () => `Escape to clear the range:\n${tty.screen()}`, 60_000);
    await shows('transcript (redacted;');

    tty.keys('Right');
    await shows('· at #2 assistant');
    tty.keys('a');
    await shows(/selected message #2 assistant: lines 4-\d+ \(\d+\) · y copy · e export/);
    const file = path.join(sandbox.root, 'entry.txt');
    tty.keys('e');
    await shows('write the message #2 assistant to the new file:');
    tty.keys('-l', file);
    tty.keys('Enter');
    await shows(`wrote the message #2 assistant to ${file} (0600)`);
    const written = fs.readFileSync(file, 'utf8');
    expect(written.startsWith('── #2 assistant ──\n[reasoning]\nREASONING-BEFORE-THE-CALL')).toBe(true);
    expect(written).toContain(`: ${'x'.repeat(2958)} TAIL-OF-ARGUMENT; echo ran-the-big-call`);
    expect(written).not.toContain('#3 tool result');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // Escape clears the selection first, then closes the browser.
    tty.keys('Escape');
    await until(() => !tty.screen().includes('selected message'), () => `Escape to clear the range:\n${tty.screen()}`, 60_000);
    tty.keys('Escape');
    await until(() => lastRow().includes('online'), () => `the chat back:\n${tty.screen()}`, 60_000);
  });
});
