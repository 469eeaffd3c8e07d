/**
 * Rich extension command results through the built CLI: a real gateway and
 * extension worker, the gateway protocol (a rich result whole for a client
 * that asks, a summary without image bytes for one that does not), and
 * `xdog claw tui` in tmux: a public command name shows text, an image line
 * and structured JSON; `/artifact save PATH` writes it and `/artifact PATH`
 * reads it back; Tab completes the token at the cursor with the whole
 * argument in the callback's context.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { clawSandbox, connect, startGateway, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { repoRoot, runCli } from '../support/cli.js';
import { writeTree } from '../support/temp.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const EXTENSION = `
export default function setup(api) {
  api.command('report', {
    publicName: 'show-state',
    description: 'a rich report',
    run: () => api.result({ text: 'Command report /quit', image: { data: '${PNG}', mimeType: 'image/png' }, structured: [false, 0, null], details: { enabled: false } }),
  });
  api.command('pick', {
    publicName: 'pick',
    run: (args) => 'picked ' + args,
    // Only a caller with the whole draft (the TUI) lets it see the word after the cursor.
    complete: (prefix, context) => {
      api.status('seen', JSON.stringify({ prefix, context: context ?? null }));
      return context && context.arguments.endsWith(' gamma') ? ['alpha'] : ['no-context'];
    },
  });
}`;

const name = `xdog-tui-results-${process.pid}`;
const tty = tmuxSession(name);
let sandbox: ClawSandbox;
let gateway: GatewayProcess | undefined;
let client: GatewayConnection | undefined;

beforeAll(async () => {
  sandbox = clawSandbox('extensions: [reporter]\n');
  const folder = path.join(sandbox.root, 'reporter');
  writeTree(folder, { 'package.json': { name: 'reporter', version: '1.0.0', type: 'module', xdog: { extension: './index.js' } }, 'index.js': EXTENSION });
  const installed = runCli(['plugins', 'install', folder], { env: sandbox.env, cwd: sandbox.root });
  if (installed.status !== 0) throw new Error(installed.stderr);
  gateway = await startGateway(sandbox);
}, 60_000);
afterAll(async () => {
  tty.kill();
  await client?.close();
  await gateway?.stop();
});

describe('rich extension command results', { timeout: 180_000 }, () => {
  it.skipIf(!hasTmux)('the TUI shows it by its public name (starting the extensions), saves it as an artifact and reads it back; Tab completes with the argument context', async () => {
    const onScreen = async (test: (screen: string) => boolean, what: string, deadlineMs = 60_000): Promise<void> => {
      const end = Date.now() + deadlineMs;
      while (!test(tty.screen())) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}:\n${tty.screen()}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    tty.start(`env ${Object.entries({ ...sandbox.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1' }).map(([key, value]) => `${key}='${value}'`).join(' ')} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} claw tui`, { width: 110, height: 40 });
    await onScreen((screen) => screen.includes('online'), 'the TUI online');

    tty.keys('-l', '/show-state');
    tty.keys('Enter');
    await onScreen((screen) => screen.includes('from extension reporter (command report):') && screen.includes('Command report /quit') && /\[image image\/png, 70 bytes, sha256 [0-9a-f]{16}\]/.test(screen) && screen.includes('"enabled": false'), 'the rich result in the pager');
    expect(tty.screen()).toMatch(/structured:\s*\n\s*\[\s*\n\s*false,\s*\n\s*0,\s*\n\s*null/);
    expect(tty.screen()).not.toContain(PNG.slice(0, 24));
    tty.keys('q');
    await onScreen((screen) => !screen.includes('Command report') && screen.includes('online'), 'the chat again');

    const file = path.join(sandbox.root, 'report.artifact.json');
    tty.keys('-l', `/artifact save ${file}`);
    tty.keys('Enter');
    await onScreen((screen) => screen.includes('saved the result of /show-state (extension reporter)'), 'the artifact saved');
    tty.keys('q');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(saved).toMatchObject({ format: 'xdog.extension-command/v1', identity: { extension: 'reporter', command: 'report', publicName: 'show-state' }, content: { structured: [false, 0, null], details: { enabled: false }, image: { data: PNG } } });
    // Saving again over it is refused: no overwrite.
    tty.keys('-l', `/artifact save ${file}`);
    tty.keys('Enter');
    await onScreen((screen) => screen.includes('already exists; it was not overwritten'), 'no overwrite');
    // A refused command goes back to the editor.
    tty.keys('C-u');

    tty.keys('-l', `/artifact ${file}`);
    tty.keys('Enter');
    await onScreen((screen) => screen.includes(`from extension reporter (command report):`) && screen.includes('artifact ') && screen.includes('Command report /quit') && screen.includes('"enabled": false'), 'the artifact read back');
    tty.keys('q');
    await onScreen((screen) => !screen.includes('Command report') && screen.includes('online'), 'the chat after the artifact');
    // A tampered file is refused, not shown.
    fs.writeFileSync(`${file}.bad`, fs.readFileSync(file, 'utf8').replace('"enabled": false', '"enabled": true'));
    tty.keys('-l', `/artifact ${file}.bad`);
    tty.keys('Enter');
    await onScreen((screen) => screen.includes('SHA-256 does not match'), 'the tampered artifact refused');
    tty.keys('C-u');

    // Tab with the cursor inside "al" of "/pick al gamma": the callback sees the whole argument, the token is replaced.
    tty.keys('-l', '/pick al gamma');
    await onScreen((screen) => screen.includes('/pick al gamma'), 'the typed draft');
    tty.keys(...Array<string>(' gamma'.length).fill('Left'));
    // A list opened while typing was made for the old cursor: its Tab inserts nothing, the next Tab asks afresh.
    const completed = (screen: string) => screen.includes('/pick alpha gamma');
    for (let tab = 0; tab < 3 && !completed(tty.screen()); tab++) {
      tty.keys('Tab');
      await onScreen(completed, 'the completed token', 5_000).catch(() => undefined);
    }
    await onScreen(completed, 'the completed token');
    await onScreen((screen) => screen.includes('reporter seen: {"prefix":"al","context":{"arguments":"al gamma","cursor":2,"start":0,"end":2}}'), 'the argument context the callback saw');
    tty.keys('Enter');
    await onScreen((screen) => screen.includes('picked alpha gamma'), 'the completed command run');
    tty.keys('q');
    // Nothing of this reached the model.
    expect(sandbox.requests()).toHaveLength(0);
  });
  it('the gateway carries a rich result whole to a client that asks, and a summary without image bytes to one that does not', async () => {
    client = await connect(sandbox);
    expect(client.hello.capabilities).toEqual(expect.arrayContaining(['extension-command-results:1', 'extension-argument-context:1']));
    const rich = (await client.callService('extensions.command', { command: '/show-state', results: true })) as { text: string; result: Record<string, any> };
    expect(rich.result).toMatchObject({ type: 'extension-command-result', extension: 'reporter', command: 'report', publicName: 'show-state' });
    expect(rich.result.content).toEqual({ text: 'Command report /quit', image: { data: PNG, mimeType: 'image/png' }, structured: [false, 0, null], details: { enabled: false } });
    const older = (await client.callService('extensions.command', { command: '/ext-reporter-report' })) as { text: string; result?: unknown };
    expect(older.result).toBeUndefined();
    expect(older.text).toMatch(/^Command report \/quit\n\[image image\/png, 70 bytes, sha256 [0-9a-f]{16}\][\s\S]*this client shows only its summary/);
    expect(older.text).not.toContain(PNG.slice(0, 24));
    // Completion from a prefix-only client: no context.
    expect(await client.callService('extensions.complete', { command: '/pick', prefix: 'al' })).toEqual({ items: ['no-context'] });
    await expect(client.callService('extensions.complete', { command: '/pick', prefix: 'zz', context: { arguments: 'al gamma', cursor: 2, start: 0, end: 2 } })).rejects.toThrow(/argument context of a completion is refused/);
    // Nothing reached the model.
    expect(sandbox.requests()).toHaveLength(0);
  });
});
