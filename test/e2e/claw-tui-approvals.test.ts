/** The TUI's approval dialog in tmux against a real gateway on the faux model. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clawSandbox, startGateway, until, type GatewayProcess } from '../support/claw.js';
import { repoRoot } from '../support/cli.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';

const name = `xdog-tui-approve-${process.pid}`;
const tty = tmuxSession(name);
let gateway: GatewayProcess | undefined;

afterEach(async () => {
  tty.kill();
  await gateway?.kill9();
  gateway = undefined;
});

const history = (): string => tty.tmux('capture-pane', '-t', name, '-p', '-S', '-');
const seen = (text: string) => until(() => history().includes(text), () => `the TUI to show ${JSON.stringify(text)}:\n${history()}`, 30_000);
/** The cursor's visibility as tmux reports it (1 shown, 0 hidden). */
const cursorShown = (): string => tty.tmux('display-message', '-p', '-t', name, '#{cursor_flag}').trim();

describe.skipIf(!hasTmux)('xdog claw tui approvals', { timeout: 180_000 }, () => {
  it('opens a dialog with the full arguments and the cursor hidden; d asks a reason and denies, a approves, e edits', async () => {
    const sandbox = clawSandbox('      approvals: { mode: mutating }\n');
    fs.writeFileSync(path.join(sandbox.workspace, 'victim.txt'), 'precious');
    fs.writeFileSync(path.join(sandbox.workspace, 'gone.txt'), 'unwanted');
    gateway = await startGateway(sandbox);
    const env = Object.entries({ ...sandbox.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1' }).map(([key, value]) => `${key}=${value}`).join(' ');
    tty.start(`cd ${sandbox.root} && env ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} claw tui; echo EXIT=$?; sleep 60`, { width: 100, height: 30 });
    await tty.waitFor('online');

    tty.keys('run rm victim.txt', 'Enter');
    await seen('approval 1 needed: bash');
    expect(history()).toContain('"command": "rm victim.txt"');
    expect(cursorShown()).toBe('0');
    tty.keys('d');
    await seen('deny because:');
    tty.keys('-l', 'keep it');
    tty.keys('Enter');
    await seen('approval 1: denied');
    await seen('tui denied it: keep it');
    expect(fs.existsSync(path.join(sandbox.workspace, 'victim.txt'))).toBe(true);

    tty.keys('run rm gone.txt', 'Enter');
    await seen('approval 2 needed: bash');
    tty.keys('a');
    await until(() => !fs.existsSync(path.join(sandbox.workspace, 'gone.txt')), 'the approved call to run', 30_000);

    tty.keys('run rm victim.txt', 'Enter');
    await seen('approval 3 needed: bash');
    tty.keys('e');
    await seen('run with: {"command":"rm victim.txt"}');
    for (let i = 0; i < 'rm victim.txt"}'.length; i++) tty.keys('BSpace');
    tty.keys('-l', 'echo edited"}');
    tty.keys('Enter');
    await seen('approval 3: runs with the edited arguments');
    await seen('a person edited the arguments');
    expect(fs.existsSync(path.join(sandbox.workspace, 'victim.txt'))).toBe(true);

    // A asks a second time before it changes what the group runs unasked; any key but y goes back.
    tty.keys('run touch made.txt', 'Enter');
    await seen('approval 4 needed: bash');
    tty.keys('A');
    await seen('always allow exactly the command "touch made.txt" in group main, without asking again? y yes');
    tty.keys('n');
    await seen('A always allow');
    expect(fs.existsSync(path.join(sandbox.workspace, 'made.txt'))).toBe(false);
    tty.keys('A');
    tty.keys('y');
    await seen('a rule was added: the group runs this without asking from now on');
    await until(() => fs.existsSync(path.join(sandbox.workspace, 'made.txt')), 'the approved call to run', 30_000);
    fs.rmSync(path.join(sandbox.workspace, 'made.txt'));
    tty.keys('run touch made.txt', 'Enter');
    await until(() => fs.existsSync(path.join(sandbox.workspace, 'made.txt')), 'the always-allowed call to run unasked', 30_000);
    expect(history()).not.toContain('approval 5 needed');
  });
});
