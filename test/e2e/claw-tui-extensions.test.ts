/**
 * Extension dialogs in `xdog claw tui` (tmux, a real gateway, a real
 * extension): an extension command's select, input and confirm open as
 * dialogs over the chat, their answers reach the extension, and a dialog
 * nobody answers closes at its timeout with the no-answer; an extension's
 * status line shows above the editor and its shortcut runs its command; a
 * command the person waits for is a job that Escape cancels before the run.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clawSandbox, startGateway, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { repoRoot, runCli } from '../support/cli.js';
import { writeTree } from '../support/temp.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';

const EXTENSION = `
export default function setup(api) {
  api.command('ask', {
    run: async () => {
      const color = await api.select('pick a color', ['red', 'green', 'blue'], { timeoutSeconds: 300 });
      const name = await api.input('your name?', { placeholder: 'a name', timeoutSeconds: 300 });
      const sure = await api.confirm('really?', { timeoutSeconds: 300 });
      return 'answers: ' + JSON.stringify({ color, name, sure });
    },
  });
  api.command('busy', {
    shortcut: 'alt+k',
    run: async () => {
      api.status('work', 'indexing 3 files');
      return 'busy now';
    },
  });
  api.command('idle', { run: async () => { api.status('work', undefined); return 'idle now'; } });
  api.command('slow', { run: () => new Promise((resolve) => setTimeout(() => resolve('slow done'), 40_000)) });
  api.command('wait', { run: async () => 'late: ' + String(await api.confirm('nobody answers this', { timeoutSeconds: 3 })) });
}`;

const name = `xdog-tui-ext-${process.pid}`;
const tty = tmuxSession(name);
let sandbox: ClawSandbox;
let gateway: GatewayProcess | undefined;

beforeAll(async () => {
  if (!hasTmux) return;
  // A command may take 90 s before its extension is quarantined: /ext-asker-slow takes 40.
  sandbox = clawSandbox('extensions: [asker]\nextension_timeout_ms: 90000\n');
  const folder = path.join(sandbox.root, 'asker');
  writeTree(folder, { 'package.json': { name: 'asker', version: '1.0.0', type: 'module', xdog: { extension: './index.js' } }, 'index.js': EXTENSION });
  const installed = runCli(['plugins', 'install', folder], { env: sandbox.env, cwd: sandbox.root });
  if (installed.status !== 0) throw new Error(installed.stderr);
  gateway = await startGateway(sandbox);
});
afterAll(async () => {
  tty.kill();
  await gateway?.stop();
});

async function onScreen(test: (screen: string) => boolean, what: string, deadlineMs = 60_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!test(tty.screen())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}:\n${tty.screen()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

let opened = false;
/** One TUI for the file's tests, opened by the first that runs (any of them may run alone). */
async function openTui(): Promise<void> {
  if (opened) return;
  opened = true;
  tty.start(`env ${Object.entries({ ...sandbox.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1' }).map(([key, value]) => `${key}='${value}'`).join(' ')} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} claw tui`, { width: 100, height: 30 });
  await onScreen((screen) => screen.includes('online'), 'the TUI online');
}

describe.skipIf(!hasTmux)('xdog claw tui: extension dialogs', { timeout: 180_000 }, () => {
  it('shows select, input and confirm as dialogs and sends the answers; an unanswered one times out', async () => {
    await openTui();
    tty.keys('/ext-asker-ask', 'Enter');
    await onScreen((screen) => screen.includes('extension asker asks (select') && screen.includes('pick a color') && screen.includes('> red'), 'the select dialog');
    tty.keys('Down');
    await onScreen((screen) => screen.includes('> green'), 'green selected');
    tty.keys('Enter');
    await onScreen((screen) => screen.includes('asks (input') && screen.includes('your name?'), 'the input dialog');
    tty.keys('-l', 'Ada');
    await onScreen((screen) => screen.includes('> Ada'), 'the typed answer');
    tty.keys('Enter');
    await onScreen((screen) => screen.includes('asks (confirm') && screen.includes('really?'), 'the confirm dialog');
    tty.keys('y');
    await onScreen((screen) => screen.includes('answers: {"color":"green","name":"Ada","sure":true}'), 'the answers the extension got');
    tty.keys('q');
    await onScreen((screen) => !screen.includes('answers: {') && screen.includes('online'), 'the chat again');

    tty.keys('/ext-asker-wait', 'Enter');
    await onScreen((screen) => screen.includes('nobody answers this'), 'the second dialog');
    await onScreen((screen) => screen.includes('late: false'), 'the no-answer after the timeout');
    expect(tty.screen()).not.toContain('nobody answers this');
    tty.keys('q');
    await onScreen((screen) => !screen.includes('late: false') && screen.includes('online'), 'the chat after the dialogs');
  });

  it('Escape cancels the command the person waits for first, and only then aborts the run', async () => {
    await openTui();
    const footer = () => tty.screen().split('\n').filter((line) => line.includes(' · ')).join('\n');
    // The command first (its call waits 40 s in the extension), then a run beside it.
    tty.keys('-l', '/ext-asker-slow');
    tty.keys('Enter');
    await onScreen((screen) => screen.includes('/ext-asker-slow working · Esc cancels it'), 'the command named above the footer');
    tty.keys('-l', 'slow 60');
    tty.keys('Enter');
    await onScreen(() => footer().includes('Esc aborts'), 'the run going');
    tty.keys('Escape');
    await onScreen((screen) => screen.includes('/ext-asker-slow was cancelled') && !screen.includes('working · Esc cancels it'), 'the command cancelled');
    // The run went on: only the next Escape aborts it.
    expect(footer()).toContain('Esc aborts');
    expect(tty.screen()).not.toContain('aborting the turn');
    tty.keys('C-u', 'Escape');
    await onScreen((screen) => screen.includes('aborting the turn'), 'the run aborted');
    await onScreen(() => footer().includes('idle'), 'the group idle again');
    expect(tty.screen()).not.toContain('slow done');
    tty.keys('C-u');
  });

  it('an extension command\'s shortcut runs it; its status line shows above the editor until it clears it', async () => {
    await openTui();
    const editorTop = () => {
      const lines = tty.screen().split('\n');
      return lines.slice(0, lines.findIndex((line) => line.startsWith('─'))).join('\n');
    };
    tty.keys('M-k');
    await onScreen((screen) => screen.includes('busy now'), 'alt+k running /ext-asker-busy');
    tty.keys('q');
    await onScreen(() => editorTop().includes('asker work: indexing 3 files') && !tty.screen().includes('busy now'), 'the status line above the editor');
    tty.keys('/ext-asker-idle', 'Enter');
    await onScreen((screen) => screen.includes('idle now'), 'the idle command');
    tty.keys('q');
    await onScreen((screen) => !screen.includes('idle now') && !screen.includes('indexing 3 files'), 'the status line gone');
  });
});
