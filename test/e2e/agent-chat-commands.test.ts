/** The host commands of the interactive `xdog agent chat` on a real TTY, driven through tmux. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAUX_MODEL_SCRIPT, until } from '../support/claw.js';
import { repoRoot } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';

const tty = tmuxSession(`xdog-e2e-chatcmd-${process.pid}`);
const waitFor = tty.waitFor;

afterEach(() => tty.kill());

function chatRoot(): string {
  const root = tempDir('xdog-e2e-chatcmd-');
  writeTree(root, { 'work/notes.txt': 'a note', 'c/xdog/config.yaml': '{}\n' });
  return root;
}

/** Starts `agent chat faux/demo ARGS` in ROOT/work on the TTY and waits for its banner. */
async function startChat(root: string, args = ''): Promise<void> {
  const env = `XDG_CONFIG_HOME=${root}/c XDG_DATA_HOME=${root}/d XDG_STATE_HOME=${root}/s XDOG_FAUX_SCRIPT=${FAUX_MODEL_SCRIPT} OCLIF_SKIP_NEW_VERSION_CHECK=1`;
  tty.start(`cd ${root}/work && env ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} agent chat faux/demo ${args}; echo EXIT=$?; sleep 60`);
  await waitFor('xdog chat with faux/demo');
}

/** Clears the screen and waits until `gone` is off it, so the next wait sees only new text. */
async function clear(gone: string): Promise<void> {
  tty.keys('C-l');
  await until(() => !tty.screen().includes(gone), 'the screen to clear', 60_000);
}

async function quit(): Promise<void> {
  tty.keys('/quit', 'Enter');
  expect(await waitFor('EXIT=')).toContain('EXIT=0');
}

describe.skipIf(!hasTmux)('xdog agent chat host commands', { timeout: 180_000 }, () => {
  it('/help lists every command and Tab completes a command and its argument', async () => {
    await startChat(chatRoot(), '--no-tools');
    tty.keys('/help', 'Enter');
    const help = await waitFor('/quit');
    for (const name of ['readonly', 'tools', 'model', 'compact', 'agents', 'name', 'sessions', 'export', 'draft', 'steer', 'follow-up', 'extensions']) expect(help).toContain(`/${name}`);
    tty.keys('/reado', 'Tab');
    await waitFor('> /readonly');
    tty.keys(' sta', 'Tab');
    await waitFor('> /readonly status');
    tty.keys('Enter');
    await waitFor('read-only scope: off');
    await quit();
  });

  it('/readonly on is refused while a run streams (the line is kept), then denies a write; off lets it run', async () => {
    const root = chatRoot();
    await startChat(root);
    tty.keys('slow 3', 'Enter');
    await waitFor('[tool] bash');
    tty.keys('/readonly on', 'Enter');
    await waitFor('/readonly on changes the chat: it is refused while a run streams (your line is kept');
    await waitFor('done: slept');
    // The refused line is back in the input line: Enter runs it now.
    await waitFor('> /readonly on');
    tty.keys('Enter');
    await waitFor('read-only scope on: only read, ls, grep, find and current_time run');
    tty.keys('run echo made > made.txt', 'Enter');
    await waitFor('the read-only scope is on: "bash" is not allowed');
    expect(fs.existsSync(path.join(root, 'work/made.txt'))).toBe(false);
    tty.keys('callj read {"path":"notes.txt"}', 'Enter');
    await waitFor('read done: 1');
    tty.keys('/readonly off', 'Enter');
    await waitFor('read-only scope off');
    tty.keys('run echo made > made.txt', 'Enter');
    await until(() => fs.existsSync(path.join(root, 'work/made.txt')), 'the allowed write', 60_000);
    await quit();
  });

  it('/tools lists the active tools, filtered', async () => {
    await startChat(chatRoot());
    tty.keys('/tools', 'Enter');
    const all = await waitFor('active tool(s)');
    expect(all).toMatch(/\s+bash — /);
    expect(all).toMatch(/\s+agent — /);
    await clear('active tool(s)');
    tty.keys('/tools grep', 'Enter');
    const some = await waitFor('matching "grep"');
    expect(some).toMatch(/ {2}grep — /);
    expect(some).not.toMatch(/ {2}bash — /);
    await quit();
  });

  it('/model lists the served models and switches (refusing an unknown one)', async () => {
    await startChat(chatRoot(), '--no-tools');
    tty.keys('/model', 'Enter');
    const listed = await waitFor('models the providers serve (current faux/demo');
    expect(listed).toContain('faux/');
    tty.keys('/model faux/other', 'Enter');
    await waitFor('model: faux/other');
    tty.keys('/model nope/none', 'Enter');
    await waitFor('[MODEL_UNKNOWN]');
    tty.keys('hello', 'Enter');
    await waitFor('echo: hello');
    await quit();
  });

  it('/compact summarizes the older turns and shows the token counts before and after', async () => {
    await startChat(chatRoot(), '--no-tools');
    tty.keys('bigtext 100000', 'Enter');
    await waitFor('99:');
    tty.keys('C-l');
    tty.keys('hello', 'Enter');
    await waitFor('echo: hello');
    tty.keys('/compact the notes', 'Enter');
    const done = await waitFor('compacted: ');
    const match = /compacted: (\d+) → (\d+) messages, (\d+) → (\d+) tokens/.exec(done);
    expect(match).not.toBeNull();
    expect(Number(match![4])).toBeLessThan(Number(match![3]));
    expect(Number(match![2])).toBeLessThan(Number(match![1]));
    await quit();
  });

  it('/agents lists the children of this chat with their status; /agents saved refuses', async () => {
    await startChat(chatRoot());
    tty.keys('/agents', 'Enter');
    await waitFor('no child agents yet');
    tty.keys('callj agent {"action":"spawn","task":"say hi"}', 'Enter');
    await waitFor('[tool] agent done');
    await until(async () => {
      tty.keys('/agents', 'Enter');
      await new Promise((resolve) => setTimeout(resolve, 500));
      return / completed \(read-only/.test(tty.screen());
    }, 'the child to complete', 60_000);
    expect(tty.screen()).toContain('say hi result: echo: say hi');
    tty.keys('/agents saved', 'Enter');
    await waitFor('none are saved [UNSUPPORTED]');
    await quit();
  });

  it('--session keeps the chat (0600), /name names it, /sessions lists it, and the same --session resumes it; without --session nothing is written', async () => {
    const root = chatRoot();
    const sessionsDir = path.join(root, 'c/xdog/chat/sessions');
    await startChat(root, '--no-tools');
    tty.keys('not kept', 'Enter');
    await waitFor('echo: not kept');
    tty.keys('/sessions', 'Enter');
    await waitFor('this chat is not kept');
    await quit();
    expect(fs.existsSync(sessionsDir)).toBe(false);
    tty.kill();

    await startChat(root, '--no-tools --session work');
    await waitFor('new chat "work"');
    tty.keys('remember the lighthouse', 'Enter');
    await waitFor('echo: remember the lighthouse');
    tty.keys('/name project', 'Enter');
    await waitFor('this chat is now "project"');
    tty.keys('/sessions', 'Enter');
    const listed = await waitFor('last used');
    expect(listed).toMatch(/\* project {2}faux\/demo {2}2 message\(s\)/);
    await quit();
    const files = fs.readdirSync(sessionsDir);
    expect(files).toHaveLength(1);
    expect(fs.statSync(path.join(sessionsDir, files[0]!)).mode & 0o777).toBe(0o600);
    tty.kill();

    await startChat(root, '--no-tools --session project');
    await waitFor('resumed chat "project" (2 message(s)');
    tty.keys('/export back.md', 'Enter');
    await waitFor('exported 2 message(s)');
    expect(fs.readFileSync(path.join(root, 'work/back.md'), 'utf8')).toContain('remember the lighthouse');
    await quit();
  });

  it('/export writes Markdown or JSON Lines (user and assistant text; --all with tools), refuses to overwrite without --force', async () => {
    const root = chatRoot();
    await startChat(root);
    tty.keys('run echo from-the-tool', 'Enter');
    await waitFor('done: from-the-tool');
    tty.keys('/export out/chat.md', 'Enter');
    await waitFor('does not exist');
    tty.keys('/export chat.md', 'Enter');
    await waitFor('exported 2 message(s)');
    const md = fs.readFileSync(path.join(root, 'work/chat.md'), 'utf8');
    expect(md).toContain('run echo from-the-tool');
    expect(md).not.toContain('[tool call]');
    expect(fs.statSync(path.join(root, 'work/chat.md')).mode & 0o777).toBe(0o600);
    tty.keys('/export chat.md', 'Enter');
    await waitFor('add --force to replace it');
    tty.keys('/export chat.jsonl --all', 'Enter');
    await waitFor('with tool calls and results');
    const lines = fs.readFileSync(path.join(root, 'work/chat.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { role: string; text: string });
    expect(lines.map((line) => line.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant']);
    expect(lines[1]!.text).toContain('[tool call] bash echo from-the-tool');
    tty.keys('/export chat.md --all --force', 'Enter');
    await waitFor('exported 4 message(s)');
    expect(fs.readFileSync(path.join(root, 'work/chat.md'), 'utf8')).toContain('[tool call]');
    await quit();
  });

  it('/draft keeps the unsent line in a 0600 file: Ctrl+C with a line typed saves it, the next chat restores it; save and clear', async () => {
    const root = chatRoot();
    const draft = path.join(root, 'c/xdog/chat/drafts/default.txt');
    await startChat(root, '--no-tools');
    tty.keys('/draft save kept for later', 'Enter');
    await waitFor('draft saved to');
    expect(fs.readFileSync(draft, 'utf8')).toBe('kept for later');
    expect(fs.statSync(draft).mode & 0o777).toBe(0o600);
    tty.keys('/draft clear', 'Enter');
    await waitFor('the saved draft was removed');
    expect(fs.existsSync(draft)).toBe(false);
    tty.keys('half written thought');
    await waitFor('> half written thought');
    tty.keys('C-c');
    await waitFor('your unsent line was kept');
    expect(await waitFor('EXIT=')).toContain('EXIT=0');
    expect(fs.readFileSync(draft, 'utf8')).toBe('half written thought');
    tty.kill();

    await startChat(root, '--no-tools');
    await waitFor('restored the draft kept when the chat last quit');
    await waitFor('> half written thought');
    expect(fs.existsSync(draft)).toBe(false);
    tty.keys('Enter');
    await waitFor('echo: half written thought');
    await quit();
  });
});
