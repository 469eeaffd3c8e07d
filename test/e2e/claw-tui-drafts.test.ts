/**
 * Saved drafts in `xdog claw tui`, on a real terminal (tmux, a private
 * server) against a real gateway (the faux model): a steer typed for a
 * running child is saved from the /agents roster (S) instead of sent, is
 * listed by `xdog claw agents drafts`, and /agents drafts puts it back as
 * its command, only into an empty editor and only while the child runs
 * (else as plain text on p); Ctrl+Alt+S keeps the parent editor's text as a
 * snapshot that /draft saved puts back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { savedDraftsDir } from '../../core/saved-drafts.js';
import { clawSandbox, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { runCli } from '../support/cli.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';
import { screenShows, startClawTui } from '../support/claw-tui.js';

const name = `xdog-tui-drafts-${process.pid}`;
/** Each TUI run gets a fresh private tmux server (a server just killed may still be exiting). */
let runs = 0;
let tty = tmuxSession(name, `${name}-0`);
let sandbox: ClawSandbox;
let gateway: GatewayProcess | undefined;

const claw = (...args: string[]) => runCli(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
const shows = (test: string | RegExp): Promise<string> => screenShows(tty, test);
/** The editor: the lines from its top border down. */
const editor = (): string => {
  const lines = tty.screen().split('\n');
  return lines.slice(lines.findIndex((line) => line.startsWith('─'))).join('\n');
};
const savedDrafts = (): Array<{ id: string; kind: string; child: string | null; firstLine: string }> => JSON.parse(claw('agents', 'drafts', '--json').stdout).drafts;

describe.skipIf(!hasTmux)('xdog claw tui: saved child and parent drafts', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    sandbox = clawSandbox();
    gateway = await startGateway(sandbox);
    // A session to be the drafts' provenance.
    expect(claw('send', 'hello').status).toBe(0);
  }, 120_000);
  afterEach(() => tty.kill());
  afterAll(async () => {
    await gateway?.stop();
  });

  it('S in the roster saves a steer for the child instead of sending it; /agents drafts restores it into an empty editor while the child runs, else as plain text', async () => {
    tty = tmuxSession(name, `${name}-${++runs}`);
    await startClawTui(tty, sandbox);
    tty.keys('/agents start --inherit slow 60', 'Enter');
    await shows(/started child \S+ \(inherit\)/);
    const [child] = JSON.parse(claw('agents', 'list', '--json').stdout) as Array<{ id: string; status: string }>;
    expect(child!.status).toBe('running');

    // Typed, then the roster opened with Alt+A (the text stays in the editor), S saves it for the selected child.
    tty.keys('keep looking in src');
    await shows('keep looking in src');
    tty.keys('M-a');
    await shows(/child agents .*\n(?:.*\n)*.*running .*slow 60/);
    tty.keys('S');
    const saved = await shows(/saved steer draft (d-[0-9a-f]{12}) for/);
    const id = /saved steer draft (d-[0-9a-f]{12})/.exec(saved)![1]!;
    tty.keys('Escape');
    await until(() => !tty.screen().includes('child agents'), 'the roster to close');
    expect(editor()).not.toContain('keep looking in src');
    // Saved, not sent: the child has no input, and the CLI lists the snapshot.
    expect(JSON.parse(claw('agents', 'inspect', child!.id, '--json').stdout).inputs).toEqual([]);
    expect(savedDrafts()).toEqual([expect.objectContaining({ id, kind: 'steer', child: child!.id, firstLine: 'keep looking in src' })]);
    const file = path.join(savedDraftsDir(sandbox.env), 'main', `${id}.json`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(claw('agents', 'drafts', 'show', id).stdout).toContain(`${id} steer for child ${child!.id} · group main`);

    // A draft being written is never replaced: d from the roster (Alt+A keeps the text) refuses to restore over it.
    tty.keys('half-written prompt');
    await shows('half-written prompt');
    tty.keys('M-a');
    await shows('child agents');
    tty.keys('d');
    await shows(new RegExp(`saved child drafts of main[^]*${id} +steer`));
    tty.keys('Enter');
    await shows(`restore refused: the editor holds a draft; ${id} was not put over it`);
    tty.keys('Escape');
    await until(() => !tty.screen().includes('saved child drafts'), 'the drafts browser to close');
    expect(editor()).toContain('half-written prompt');
    tty.keys('C-c');
    await until(() => !editor().includes('half-written prompt'), 'the editor to clear');

    // Into the empty editor, as the steer command for that child; Enter sends it.
    tty.keys('/agents drafts', 'Enter');
    await shows('saved child drafts of main');
    tty.keys('Enter');
    await shows(`saved draft ${id} (steer, 19 characters) is in the editor; nothing was sent`);
    expect(editor()).toContain(`/agents steer ${child!.id} keep looking in src`);
    tty.keys('Enter');
    await shows(`accepted by child ${child!.id}`);
    await until(() => JSON.parse(claw('agents', 'inspect', child!.id, '--json').stdout).inputs.some((input: { text: string }) => input.text === 'keep looking in src'), 'the child to journal the restored steer');
    // Restoring keeps the snapshot (x deletes it).
    expect(savedDrafts().map((draft) => draft.id)).toEqual([id]);

    // The child ended: the steer is refused, p puts the text in as plain text.
    expect(claw('agents', 'cancel', child!.id).status).toBe(0);
    tty.keys('/agents drafts', 'Enter');
    await shows('saved child drafts of main');
    tty.keys('Enter');
    await shows(`restore refused: child ${child!.id} is cancelled: a steer can no longer reach it (p puts the text`);
    tty.keys('p');
    await until(() => editor().includes('keep looking in src'), () => `p to put the text in the editor:\n${tty.screen()}`);
    expect(editor()).not.toContain('/agents steer');
    tty.keys('C-c');
    await until(() => !editor().includes('keep looking in src'), 'the editor to clear');

    // x deletes the saved file only.
    tty.keys('/agents drafts', 'Enter');
    await shows('saved child drafts of main');
    tty.keys('x');
    await shows(`deleted ${id}; nothing else changed`);
    expect(savedDrafts()).toEqual([]);
    // Quit here, so the draft file quitting keeps is written before the next test clears it.
    tty.keys('Escape');
    await until(() => !tty.screen().includes('saved child drafts'), 'the drafts browser to close');
    tty.keys('C-c', 'C-c');
    await shows('EXIT=');
  });

  it('Ctrl+Alt+S keeps the parent draft as a snapshot and leaves it in the editor; /draft saved puts it back into an empty editor', async () => {
    // Nothing of the test before: neither its snapshots nor a draft kept when its TUI was killed.
    for (const dir of ['drafts', 'saved-drafts']) fs.rmSync(path.join(sandbox.root, 'state/xdog/claw', dir), { recursive: true, force: true });
    const sessionId = JSON.parse(claw('status', '--json').stdout).groups[0].activeSessionId as string;
    tty = tmuxSession(name, `${name}-${++runs}`);
    await startClawTui(tty, sandbox);
    tty.keys('a parent prompt for later');
    await shows('a parent prompt for later');
    tty.keys('C-M-s');
    const saved = await shows(/draft saved as (d-[0-9a-f]{12}) \(private snapshot/);
    const id = /draft saved as (d-[0-9a-f]{12})/.exec(saved)![1]!;
    expect(editor()).toContain('a parent prompt for later');
    expect(savedDrafts()).toEqual([expect.objectContaining({ id, kind: 'parent', child: null, firstLine: 'a parent prompt for later', sessionId })]);
    tty.keys('C-c');
    await until(() => !editor().includes('a parent prompt for later'), 'the editor to clear');

    tty.keys('/draft saved', 'Enter');
    await shows(new RegExp(`saved parent drafts of main[^]*${id} +parent`));
    tty.keys('Enter');
    await shows(`saved draft ${id} (parent, 25 characters) is in the editor; nothing was sent`);
    expect(editor()).toContain('a parent prompt for later');
    tty.keys('C-c');
    await until(() => !editor().includes('a parent prompt for later'), 'the editor to clear');
    tty.keys(`/draft saved ${id}`, 'Enter');
    await until(() => editor().includes('a parent prompt for later'), () => `/draft saved ID to restore it:\n${tty.screen()}`);
  });
});
