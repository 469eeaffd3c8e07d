/** `xdog agent chat` asks on its TTY (driven through tmux); without a TTY an ask is a denial. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAUX_MODEL_SCRIPT, until } from '../support/claw.js';
import { repoRoot, runCli } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';

const tty = tmuxSession(`xdog-e2e-approvals-${process.pid}`);

afterEach(() => tty.kill());

function chatRoot(): string {
  const root = tempDir('xdog-e2e-approve-');
  writeTree(root, {
    'c/xdog/config.yaml': 'approvals:\n  mode: mutating\n  rules:\n    - { allow: bash, command: "echo" }\n',
    'work/victim.txt': 'precious',
    'work/gone.txt': 'unwanted',
  });
  return root;
}

const envOf = (root: string) => ({ XDG_CONFIG_HOME: `${root}/c`, XDG_DATA_HOME: `${root}/d`, XDOG_FAUX_SCRIPT: FAUX_MODEL_SCRIPT, OCLIF_SKIP_NEW_VERSION_CHECK: '1' });

describe('xdog agent chat approvals', { timeout: 180_000 }, () => {
  it.skipIf(!hasTmux)('asks on the TTY: deny with a reason the model sees, edit the arguments, approve', async () => {
    const root = chatRoot();
    const env = Object.entries(envOf(root)).map(([key, value]) => `${key}=${value}`).join(' ');
    tty.start(`cd ${root}/work && env ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} agent chat faux/demo; echo EXIT=$?; sleep 60`);
    await tty.waitFor('xdog chat with faux/demo');

    tty.keys('run rm victim.txt', 'Enter');
    const asked = await tty.waitFor('approve?');
    expect(asked).toContain('approval needed: bash');
    expect(asked).toContain('"command": "rm victim.txt"');
    expect(asked).toContain('"rm victim.txt" is not covered by a rule');
    tty.keys('d keep the victim, it is the only copy', 'Enter');
    await tty.waitFor('done: Tool call denied: keep the victim, it is the only copy');
    expect(fs.readFileSync(path.join(root, 'work/victim.txt'), 'utf8')).toBe('precious');

    tty.keys('C-l');
    // Wait for the clear: otherwise the first question's "approve?" can still be on screen and the answer typed too early.
    await until(() => !tty.screen().includes('approve?'), 'the screen to clear', 60_000);
    tty.keys('run rm victim.txt', 'Enter');
    await tty.waitFor('approve?');
    tty.keys('e {"command":"echo edited instead"}', 'Enter');
    await tty.waitFor('it ran with {"command":"echo edited instead"}');
    expect(fs.existsSync(path.join(root, 'work/victim.txt'))).toBe(true);

    tty.keys('run rm gone.txt', 'Enter');
    await tty.waitFor('"command": "rm gone.txt"');
    tty.keys('a', 'Enter');
    await until(() => !fs.existsSync(path.join(root, 'work/gone.txt')), 'the approved rm to run', 60_000);
    // An allowed command is never asked.
    tty.keys('run echo no question', 'Enter');
    await tty.waitFor('done: no question');
    tty.keys('/quit', 'Enter');
    expect(await tty.waitFor('EXIT=')).toContain('EXIT=0');
  });

  it('without a TTY an asked call is denied with the reason, and nothing runs', () => {
    const root = chatRoot();
    const result = runCli(['agent', 'chat', 'faux/demo', 'run rm victim.txt', '--json'], { env: envOf(root), cwd: path.join(root, 'work') });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("needs a person's approval");
    expect(result.stdout).toContain('nobody can be asked here');
    expect(fs.readFileSync(path.join(root, 'work/victim.txt'), 'utf8')).toBe('precious');
  });
});
