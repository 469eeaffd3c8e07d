/**
 * The todo summary line of `xdog claw tui` on a real terminal (tmux) against
 * a real gateway process: it follows the model's todo_write live
 * (todos.changed) and is shown again when the TUI is opened anew.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clawSandbox, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { repoRoot } from '../support/cli.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';

const name = `xdog-tui-todos-${process.pid}`;
const tty = tmuxSession(name);
const gateways: GatewayProcess[] = [];

afterEach(async () => {
  tty.kill();
  for (const gateway of gateways.splice(0)) await gateway.kill9();
});

async function openTui(sandbox: ClawSandbox): Promise<void> {
  const env = Object.entries({ ...sandbox.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1' })
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  tty.start(`cd ${sandbox.root} && env ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} claw tui; echo EXIT=$?; sleep 60`, { width: 100, height: 30 });
  await tty.waitFor('online');
}

/** The line right above the editor's border: the todo summary (the chat shows the tool results further up). */
const lineAboveEditor = (): string => {
  const lines = tty.screen().split('\n');
  return (lines[lines.findIndex((line) => line.startsWith('─')) - 1] ?? '').trim();
};
const summaryShows = (text: string): Promise<void> => until(() => lineAboveEditor() === text, () => `the TUI to show ${JSON.stringify(text)} above the editor:\n${tty.screen()}`);

describe.skipIf(!hasTmux)('xdog claw tui: todos', { timeout: 180_000 }, () => {
  it('shows the todo summary line as the model changes the list, and again after a restart of the TUI', async () => {
    const sandbox = clawSandbox();
    fs.writeFileSync(sandbox.configFile, fs.readFileSync(sandbox.configFile, 'utf8').replace('enabled_tools: [bash, read]', 'enabled_tools: [bash, read, todo_write, todo_read]'));
    gateways.push(await startGateway(sandbox));
    await openTui(sandbox);
    expect(lineAboveEditor()).not.toContain('todos');

    const write = (todos: unknown[]) => tty.keys(`callj todo_write ${JSON.stringify({ todos })}`, 'Enter');
    write([{ text: 'read the notes', status: 'done' }, { text: 'rewrite them', status: 'in_progress' }, { text: 'ship it', status: 'pending' }]);
    await summaryShows('todos 1/3 done · now: rewrite them');
    write([{ text: 'read the notes', status: 'done' }, { text: 'rewrite them', status: 'done' }, { text: 'ship it', status: 'in_progress' }]);
    await summaryShows('todos 2/3 done · now: ship it');

    tty.keys('C-c');
    tty.keys('C-c');
    await until(() => tty.screen().includes('EXIT=0'), 'the TUI to quit');
    tty.kill();
    await openTui(sandbox);
    await summaryShows('todos 2/3 done · now: ship it');
  });
});
