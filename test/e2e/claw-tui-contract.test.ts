/**
 * The interactive-terminal contract of `xdog claw tui`, on a real terminal
 * (tmux running an interactive bash, so job control is real) against a real
 * gateway process on the scripted faux model: what a person sees on the
 * screen and in tmux's history, and what the gateway stored.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clawSandbox, connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';
import { hasXClipboard, startXDisplay } from '../support/x-display.js';
import { pathMessages, readTranscriptEntries } from '../../plugins/claw-tui/conversation.js';

const name = `xdog-tui-contract-${process.pid}`;
const tty = tmuxSession(name);
let sandbox: ClawSandbox;
let gateway: GatewayProcess | undefined;

/** An extension with two shortcuts, for keybindings.json's overrides (started only by /extensions). */
const KEYED_EXTENSION = `
export default function setup(api) {
  api.command('compose', { shortcut: 'alt+k', run: async () => 'composed by keyed' });
  api.command('blocked', { shortcut: 'alt+j', run: async () => 'blocked ran' });
}`;

beforeAll(async () => {
  if (!hasTmux) return;
  sandbox = clawSandbox('extensions: [keyed]\n');
  const folder = path.join(sandbox.root, 'keyed');
  writeTree(folder, { 'package.json': { name: 'keyed', version: '1.0.0', type: 'module', xdog: { extension: './index.js' } }, 'index.js': KEYED_EXTENSION });
  const installed = runCli(['plugins', 'install', folder], { env: sandbox.env, cwd: sandbox.root });
  if (installed.status !== 0) throw new Error(installed.stderr);
  gateway = await startGateway(sandbox);
});
afterEach(() => tty.kill());
afterAll(async () => {
  await gateway?.kill9();
});

/** The whole pane, with what scrolled into tmux's history. */
const history = (): string => tty.tmux('capture-pane', '-t', name, '-p', '-S', '-', '-J');
/**
 * Waits for `test`, polling tmux every 250 ms: a tighter loop of capture-pane keeps tmux from
 * reading the pane, and the TUI's synchronous terminal writes then block until it catches up.
 */
async function poll(test: () => boolean, what: () => string, deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
/** Whitespace runs as one space: the TUI wraps long lines itself, so tmux cannot join them (`-J` joins only the terminal's own wraps). */
const flat = (text: string): string => text.replace(/\s+/g, ' ');
const seen = (text: string, deadlineMs = 60_000): Promise<void> => poll(() => flat(history()).includes(flat(text)), () => `the TUI to show ${JSON.stringify(text)}:\n${tty.screen()}`, deadlineMs);
const onScreen = (test: (screen: string) => boolean, what: string, deadlineMs = 60_000): Promise<void> => poll(() => test(tty.screen()), () => `${what}:\n${tty.screen()}`, deadlineMs);
const count = (text: string, needle: string): number => text.split(needle).length - 1;

/** An interactive bash in tmux (job control on) that prints a marker, then runs the TUI. */
async function openTui(marker: string, extraEnv: Record<string, string> = {}): Promise<void> {
  // The editor settings of whoever runs the tests never reach the TUI (a test sets its own).
  const env = ['-u VISUAL -u EDITOR', ...Object.entries({ ...sandbox.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', ...extraEnv }).map(([key, value]) => `${key}='${value!.replace(/'/g, "'\\''")}'`)].join(' ');
  tty.start('env PS1="$ " bash --norc --noprofile -i', { width: 100, height: 30 });
  await onScreen((screen) => screen.includes('$'), 'the shell prompt');
  tty.keys('-l', `cd ${sandbox.root} && echo ${marker} && env ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} claw tui`);
  tty.keys('Enter');
  await onScreen((screen) => screen.includes('online'), 'the TUI online');
  // An earlier test's TUI keeps its editor's text as the draft when it is killed, and this one restores it: Ctrl+C
  // clears it (the hint it arms goes with the next key) so each test starts with an empty editor.
  tty.keys('C-c');
  await onScreen((screen) => screen.includes('press Ctrl+C again'), 'the cleared editor');
}

describe.skipIf(!hasTmux)('xdog claw tui: the terminal contract', { timeout: 300_000 }, () => {
  it('Ctrl+L repaints without clearing tmux history; Ctrl+Z suspends to the shell and fg brings back the draft', async () => {
    await openTui('SHELL-LINE-BEFORE-TUI');
    tty.keys('first marker', 'Enter');
    await seen('echo: first marker');
    // Enough text that the first lines scroll into tmux's history.
    tty.keys('long 900', 'Enter');
    await seen('w899');
    tty.keys('-l', 'draft kept over repaint');
    await onScreen((screen) => screen.includes('draft kept over repaint'), 'the draft');
    tty.keys('C-l');
    tty.keys('-l', ' and after');
    await onScreen((screen) => screen.includes('draft kept over repaint and after'), 'the draft after Ctrl+L');
    const after = history();
    expect(after).toContain('SHELL-LINE-BEFORE-TUI');
    expect(count(after, 'echo: first marker')).toBe(1);
    expect(count(after, 'w899')).toBe(1);

    tty.keys('C-z');
    await onScreen((screen) => /Stopped/.test(screen), 'bash saying the job stopped');
    tty.keys('fg', 'Enter');
    await onScreen((screen) => screen.includes('draft kept over repaint and after') && screen.includes('online'), 'the TUI back with its draft');
    tty.keys('Enter');
    await seen('echo: draft kept over repaint and after');
    expect(history()).toContain('SHELL-LINE-BEFORE-TUI');
  });

  // The restore notice is wider than the pane: the TUI wraps it itself, which is why `seen` compares text
  // with whitespace flattened (a substring across the wrap was never found, and this test once looked hung).
  it('an abort puts the running prompt and both queued turns back in the editor, ahead of the draft, and sends none of them', async () => {
    await openTui('abort');
    tty.keys('slow 30', 'Enter');
    await seen('bash sleep 30; echo slept');
    tty.keys('queued one', 'Enter');
    await seen('queued q1');
    tty.keys('queued two', 'Enter');
    await seen('queued q2');
    await onScreen((screen) => /queued q1 queued one · q2 queued two/.test(screen), 'the queue preview line');
    tty.keys('-l', 'newer draft');
    await onScreen((screen) => screen.includes('newer draft'), 'the draft');
    const before = sandbox.requests().length;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    tty.keys('Escape');
    await seen('are back in the editor, ahead of your draft');
    await onScreen((screen) => /slow 30\s*\n.*queued one\s*\n.*queued two\s*\n.*newer draft/.test(screen), 'the prompt, q1, q2 and the draft in that order in the editor');
    // Nothing was sent after the abort: the group is idle and no request carries the queued texts.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(sandbox.requests().slice(before).some((request) => JSON.stringify(request).includes('queued one'))).toBe(false);
    expect(tty.screen()).not.toMatch(/queued q1 queued one/);
  });

  it('Ctrl+O opens the details of the tool calls, ← → between them, Escape closes them before it would abort', async () => {
    await openTui('details');
    tty.keys('tools', 'Enter');
    await seen('done: two');
    tty.keys('C-o');
    await onScreen((screen) => /details (\d+)\/\1 · bash \(tool call\)/.test(screen) && screen.includes('"command": "echo two"'), 'the newest tool call in the viewer');
    expect(tty.screen()).toMatch(/result:\s*\n\s*two/);
    tty.keys('Left');
    await onScreen((screen) => /details \d+\/\d+ · bash/.test(screen) && screen.includes('"command": "echo one"'), 'the first tool call');
    tty.keys('Escape');
    await onScreen((screen) => !/details \d+\//.test(screen) && screen.includes('online'), 'the chat again');
    tty.keys('-l', 'typed after the viewer');
    await onScreen((screen) => screen.includes('typed after the viewer'), 'the editor taking keys again');
  });

  it.skipIf(!hasXClipboard)('/paste attaches the clipboard image (previewed above the editor, sent byte for byte); Ctrl+V puts its text in the draft', async () => {
    const x = await startXDisplay();
    try {
      const header = Buffer.from('89504e470d0a1a0a0000000d49484452000000200000001808060000001ff3ff61', 'hex');
      const image = Buffer.concat([header, crypto.randomBytes(3000)]);
      x.copy('image/png', image);
      await openTui('paste', { DISPLAY: x.display });
      tty.keys('/paste', 'Enter');
      await seen('attached a1: clipboard (image/png, 32x24');
      await onScreen((screen) => /attached a1 clipboard PNG 32x24 3 KiB/.test(screen), 'the preview of the attachment');
      tty.keys('see the pasted image', 'Enter');
      await seen('echo: see the pasted image');
      await onScreen((screen) => !screen.includes('attached a1 clipboard PNG'), 'the preview gone with the sent message');
      const sent = sandbox.requests().findLast((request) => JSON.stringify(request.messages.at(-1)).includes('see the pasted image'))!;
      const part = (sent.messages.at(-1)!.content as Array<{ type: string; data?: string }>).find((item) => item.type === 'image');
      expect(Buffer.from(part?.data ?? '', 'base64').equals(image)).toBe(true);
      x.copy('UTF8_STRING', 'words from the clipboard');
      tty.keys('-l', 'before: ');
      await onScreen((screen) => screen.includes('before:'), 'the draft');
      tty.keys('C-v');
      await onScreen((screen) => screen.includes('before: words from the clipboard'), 'the clipboard text in the draft');
    } finally {
      x.stop();
    }
  });

  it('a 20,000-character typed line is answered (the time is printed)', async () => {
    await openTui('typing');
    const line = Array.from({ length: 20_000 }, (_, i) => (i % 8 === 7 ? ' ' : 'abcdefgh'[i % 8])).join('').trimEnd() + 'Z';
    const started = Date.now();
    // send-keys -l types it key by key, as a person would (no bracketed paste).
    for (let at = 0; at < line.length; at += 2000) tty.keys('-l', line.slice(at, at + 2000));
    tty.keys('Enter');
    await until(() => sandbox.requests().some((request) => JSON.stringify(request.messages.at(-1)).includes(line)), 'the model to get the whole typed line', 240_000);
    await poll(() => count(history(), 'abcdefgZ') >= 2, () => 'the typed line and its echo on screen', 240_000);
    console.log(`claw tui: a 20,000-character typed line was answered on screen ${Date.now() - started} ms after the first key was sent`);
  });

  it('sends an 8 MiB image in chunks: the gateway stores it byte for byte', async () => {
    // A PNG header and 8 MiB of noise, given relative to the group's workspace (the TUI runs elsewhere).
    const header = Buffer.from('89504e470d0a1a0a0000000d49484452000000100000001008060000001ff3ff61', 'hex');
    const image = Buffer.concat([header, crypto.randomBytes(8 * 1024 * 1024 - header.length)]);
    fs.writeFileSync(path.join(sandbox.workspace, 'big.png'), image);
    await openTui('image');
    tty.keys('/attach big.png', 'Enter');
    await seen('attached a1: big.png');
    tty.keys('look at the big one', 'Enter');
    await seen('echo: look at the big one');
    const gatewayConnection = await connect(sandbox);
    try {
      const status = (await gatewayConnection.call('group.status', {})) as { activeSessionId: string };
      const shown = (await gatewayConnection.call('session.show', { sessionId: status.activeSessionId })) as { session: { leafEntryId: number } };
      const messages = pathMessages(await readTranscriptEntries(gatewayConnection.callService, undefined, status.activeSessionId), shown.session.leafEntryId);
      // The message of this test (the session holds the other tests' messages too).
      const parts = messages.filter((entry) => JSON.stringify(entry.message.content).includes('look at the big one')).flatMap((entry) => (Array.isArray(entry.message.content) ? (entry.message.content as Array<{ type: string; data?: string }>) : []));
      const stored = parts.filter((part) => part.type === 'image');
      expect(stored).toHaveLength(1);
      expect(crypto.createHash('sha256').update(Buffer.from(stored[0]!.data ?? '', 'base64')).digest('hex')).toBe(crypto.createHash('sha256').update(image).digest('hex'));
    } finally {
      await gatewayConnection.close();
    }
  });

  it('a reconnect keeps the notices the person saw and appends what came after, without redrawing', async () => {
    await openTui('reconnect');
    tty.keys('before the drop', 'Enter');
    await seen('echo: before the drop');
    tty.keys('/queue resume', 'Enter');
    await seen('the queue is empty; there is nothing to resume');
    await gateway!.kill9();
    await seen('the connection to the gateway was lost');
    gateway = await startGateway(sandbox);
    await seen('reconnected; nothing was resent');
    tty.keys('after the drop', 'Enter');
    await seen('echo: after the drop');
    const shown = history();
    expect(shown).toContain('the queue is empty; there is nothing to resume');
    expect(shown).toContain('the connection to the gateway was lost');
    expect(count(shown, 'echo: before the drop')).toBe(1);
  });
});

/** A claw directory holding only this keybindings.json (CLAW_DIR points the TUI at it). */
function keysDir(bindings: Record<string, string | string[]>): string {
  const dir = tempDir('xdog-tui-keys-');
  fs.writeFileSync(path.join(dir, 'keybindings.json'), JSON.stringify(bindings));
  return dir;
}
/** True while tmux shows the pane's alternate screen. */
const alternateOn = (): boolean => tty.tmux('display-message', '-p', '-t', name, '#{alternate_on}').trim() === '1';

/**
 * A stand-in editor at `file` that logs each argument it gets (one per line, in brackets), its
 * working directory and the temp file's mode to `log`, then appends " +edited" to the file it
 * was given (its last argument), or exits 3 while `<log>.fail` exists.
 */
function fakeEditor(file: string, log: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    `#!/bin/sh\nfor arg in "$@"; do printf '[%s]\\n' "$arg"; done > '${log}'\npwd >> '${log}'\nfor last in "$@"; do :; done\nstat -c 'mode %a' "$last" >> '${log}'\n[ -e '${log}.fail' ] && exit 3\nprintf '%s +edited\\n' "$(cat "$last")" > "$last"\n`,
    { mode: 0o755 },
  );
}

describe.skipIf(!hasTmux)('xdog claw tui: keybindings.json, F1, /editor and /fullscreen', { timeout: 300_000 }, () => {
  it('F1 lists the keys; "steer": [] leaves Alt+S doing nothing and /keys and /help say disabled; a key bound to fullscreen opens the transcript on the alternate screen', async () => {
    await openTui('keys-file', { CLAW_DIR: keysDir({ steer: [], fullscreen: 'f2', send: 'enter' }) });
    expect(flat(history())).not.toContain('the default key bindings are used');
    tty.keys('F1');
    await onScreen((screen) => /steer\s+\(disabled\)/.test(screen) && /fullscreen\s+f2/.test(screen) && /keys\s+f1/.test(screen), 'the key list F1 opens');
    tty.keys('Escape');
    await onScreen((screen) => !/steer\s+\(disabled\)/.test(screen) && screen.includes('online'), 'the chat again');

    // Alt+S is no key now: the draft stays, and nothing tries to steer (the text typed after it lands after it).
    tty.keys('-l', 'not steered');
    await onScreen((screen) => screen.includes('not steered'), 'the draft');
    tty.keys('M-s');
    tty.keys('-l', ' still here');
    await onScreen((screen) => screen.includes('not steered still here'), 'the draft after Alt+S');
    expect(flat(history())).not.toMatch(/nothing to steer|steer i\d+ accepted/);
    tty.keys('C-c');
    await onScreen((screen) => screen.includes('press Ctrl+C again'), 'the cleared editor');
    tty.keys('/help steer', 'Enter');
    await seen('(key: none, steer disabled)');
    tty.keys('q');
    await onScreen((screen) => screen.includes('online') && !screen.includes('key: none'), 'the chat again');

    tty.keys('for the transcript', 'Enter');
    await seen('echo: for the transcript');
    expect(alternateOn()).toBe(false);
    tty.keys('F2');
    await poll(() => alternateOn() && tty.screen().includes('transcript (redacted') && tty.screen().includes('· fullscreen'), () => `the fullscreen transcript on the alternate screen:\n${tty.screen()}`, 60_000);
    tty.keys('q');
    await poll(() => !alternateOn() && tty.screen().includes('online'), () => `the chat back on the main screen:\n${tty.screen()}`, 60_000);
    tty.keys('/fullscreen', 'Enter');
    await poll(() => alternateOn() && tty.screen().includes('· fullscreen'), () => `/fullscreen on the alternate screen:\n${tty.screen()}`, 60_000);
    tty.keys('q');
    await poll(() => !alternateOn(), () => 'the main screen again', 60_000);
  });

  it('/editor with VISUAL and EDITOR unset runs the vi first on PATH in the workspace on a 0600 file; the draft changes and is not sent', async () => {
    const bin = tempDir('xdog-tui-bin-');
    const log = path.join(bin, 'vi.log');
    fakeEditor(path.join(bin, 'vi'), log);
    await openTui('editor-vi', { PATH: `${bin}:${process.env.PATH}` });
    tty.keys('/editor', 'Enter');
    await onScreen((screen) => screen.includes('+edited'), 'the edited draft in the editor');
    const logged = fs.readFileSync(log, 'utf8').split('\n');
    expect(logged[0]).toMatch(/^\[.*xdog-draft-[^/]+\/draft\.md\]$/);
    expect(logged).toContain(sandbox.workspace);
    expect(logged).toContain('mode 600');
    // Not sent: the next message the model gets is the one typed after clearing the editor.
    tty.keys('C-c');
    await onScreen((screen) => screen.includes('press Ctrl+C again'), 'the cleared editor');
    tty.keys('after the editor', 'Enter');
    await seen('echo: after the editor');
    expect(sandbox.requests().some((request) => JSON.stringify(request).includes('+edited'))).toBe(false);
    // A failing editor keeps the draft as it was.
    fs.writeFileSync(`${log}.fail`, '');
    tty.keys('-l', 'my words');
    await onScreen((screen) => screen.includes('my words'), 'the draft');
    tty.keys('C-g');
    await seen('the editor vi exited with 3; the draft is unchanged');
    tty.keys('-l', ' kept');
    await onScreen((screen) => screen.includes('my words kept') && !screen.includes('my words +edited'), 'the old draft after the failure');
  });

  it('EDITOR with a quoted path holding a space reaches that program, its arguments one each; Ctrl+G edits the typed draft', async () => {
    const bin = path.join(tempDir('xdog-tui-bin-'), 'with space');
    const log = path.join(bin, 'ed.log');
    fakeEditor(path.join(bin, 'my ed'), log);
    await openTui('editor-quoted', { EDITOR: `'${bin}/my ed' -x "two words"` });
    tty.keys('-l', 'typed draft');
    await onScreen((screen) => screen.includes('typed draft'), 'the draft');
    tty.keys('C-g');
    await onScreen((screen) => screen.includes('typed draft +edited'), 'the draft edited by "my ed"');
    const logged = fs.readFileSync(log, 'utf8').split('\n');
    expect(logged.slice(0, 2)).toEqual(['[-x]', '[two words]']);
    expect(logged[2]).toMatch(/draft\.md\]$/);
    // It runs in the group's workspace, not where the TUI was started.
    expect(logged[3]).toBe(sandbox.workspace);
  });

  it('keybindings.json remaps one extension shortcut and unbinds another; /keys shows them and a command no extension has as unavailable', async () => {
    await openTui('ext-keys', { CLAW_DIR: keysDir({ 'ext-keyed-compose': 'alt+x', 'ext-keyed-blocked': [], 'ext-gone-thing': 'alt+g' }) });
    tty.keys('/extensions', 'Enter');
    await onScreen((screen) => screen.includes('shortcut alt+k: /ext-keyed-compose'), 'the started extension');
    tty.keys('q');
    await onScreen((screen) => screen.includes('online'), 'the chat again');
    tty.keys('/keys', 'Enter');
    await onScreen((screen) => screen.includes('extension shortcuts:'), 'the key list');
    // Its end: the extension shortcuts come after the actions.
    tty.keys('NPage');
    await onScreen(
      (screen) => flat(screen).includes('alt+x /ext-keyed-compose · set by keybindings.json') && flat(screen).includes('(disabled) /ext-keyed-blocked · disabled by keybindings.json') && flat(screen).includes('alt+g /ext-gone-thing · unavailable'),
      'the overrides in /keys',
    );
    tty.keys('q');
    await onScreen((screen) => screen.includes('online') && !screen.includes('set by keybindings'), 'the chat again');
    // The extension's own keys do nothing now (the text typed after them lands after them).
    tty.keys('M-k');
    tty.keys('M-j');
    tty.keys('-l', 'after the old keys');
    await onScreen((screen) => screen.includes('after the old keys'), 'the draft after Alt+K and Alt+J');
    expect(flat(history())).not.toMatch(/composed by keyed|blocked ran/);
    tty.keys('C-c');
    await onScreen((screen) => screen.includes('press Ctrl+C again'), 'the cleared editor');
    tty.keys('M-x');
    await onScreen((screen) => screen.includes('composed by keyed'), 'Alt+X running /ext-keyed-compose');
  });
});
