/**
 * Eyes end to end: the built CLI's agents (scripted faux model) use the shared
 * daemon, which drives Debian's real Chromium against an HTTP server this
 * test runs. One daemon serves the whole file (Chromium starts once); the
 * last test stops it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectEyes, ensureEyes, eyesLocations, type EyesClient, type WatchRecord } from '../../plugins/eyes/index.js';
import { runCli, runCliAsync } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';
import { useEnv } from '../support/env.js';

const root = tempDir('xdog-eyes-');
const work = path.join(root, 'work');
const env = {
  XDG_CONFIG_HOME: path.join(root, 'config'),
  XDG_DATA_HOME: path.join(root, 'data'),
  XDG_STATE_HOME: path.join(root, 'state'),
  XDG_RUNTIME_DIR: path.join(root, 'run'),
  XDOG_CONFIG: path.join(root, 'config.yaml'),
};
// The daemon this process ensures (watch tests) must be the one the CLI's agents ensure.
useEnv(env);

let counter = 'one';
const server = http.createServer((request, response) => {
  const html = (status: number, body: string) => {
    response.writeHead(status, { 'content-type': 'text/html' });
    response.end(body);
  };
  switch (request.url) {
    case '/':
      return html(200, '<title>Eyes test</title><body style="margin:0;background:#fff"><h1>Hello Eyes</h1><p>The page text.</p></body>');
    case '/broken':
      return html(200, '<title>Broken</title><p>broken</p><img src="/missing.png"><script>throw new Error("boom from the page")</script>');
    case '/counter':
      return html(200, `<title>Counter</title><p>value ${counter}</p>`);
    case '/loop':
      return html(200, '<title>Loop</title><script>for (;;) {}</script>');
    case '/grow':
      return html(200, '<title>Grow</title><script>const keep = []; for (let i = 0; i < 1e9; i++) keep.push({ i, text: "x".repeat(64) + i });</script>');
    case '/away':
      response.writeHead(302, { location: 'http://example.com/' });
      return response.end();
    default:
      return html(404, 'not found');
  }
});
let base = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  fs.mkdirSync(work, { recursive: true });
  fs.mkdirSync(env.XDG_RUNTIME_DIR, { mode: 0o700 });
  writeTree(root, { 'config.yaml': 'capabilities: [flow, eyes]\n', 'plain.yaml': '{}\n' });
});

afterAll(async () => {
  // Whatever a failed test left: stop the daemon (it is detached, so nothing else would).
  const pid = Number(fs.readFileSync(eyesLocations().pidFile, { encoding: 'utf8', flag: 'a+' }) || 0);
  if (pid > 1) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  server.close();
});

interface LoggedRequest {
  messages: Array<{ role: string; toolName?: string; isError?: boolean; content: Array<{ type: string; text?: string; data?: string }> | string }>;
  tools: Array<{ name: string }>;
}

/** Runs one chat whose scripted model makes `calls` (one per turn) and then answers "done"; the tool results it received. */
function chat(name: string, calls: Array<{ name: string; arguments: object }>, options: { model?: object } = {}) {
  const script = path.join(root, `${name}.json`);
  const log = path.join(root, `${name}.jsonl`);
  writeTree(root, { [`${name}.json`]: { ...(options.model ? { model: options.model } : {}), responses: [...calls.map((call) => ({ toolCalls: [call] })), { text: 'done' }] } });
  const runEnv = { ...env, XDOG_FAUX_SCRIPT: script, XDOG_FAUX_LOG: log };
  const requests = (): LoggedRequest[] => fs.readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LoggedRequest);
  const results = () => requests().at(-1)!.messages.filter((message) => message.role === 'toolResult');
  return { runEnv, requests, results, args: ['agent', 'chat', 'faux/demo', 'look', '--cwd', work] };
}

function textOf(message: LoggedRequest['messages'][number]): string {
  return typeof message.content === 'string' ? message.content : message.content.map((part) => part.text ?? '').join('\n');
}

function pngSize(base64: string): { width: number; height: number } {
  const png = Buffer.from(base64, 'base64');
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** The pids of `pid` and all its descendants. */
function tree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    // No children.
  }
  return [pid, ...children.flatMap(tree)];
}

/** True while `pid` runs (a zombie, exited but not yet reaped by this process, has ended). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, deadlineMs = 120_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the watches: ${runCli(['eyes', 'list'], { env }).stdout}; the daemon log:\n${runCli(['eyes', 'logs'], { env }).stdout}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// Chromium under load (the machine runs other suites): generous per-test deadlines.
describe('Eyes', { timeout: 240_000 }, () => {
  it('a bare chat (and --no-tools) never starts the daemon; `capabilities: [eyes]` gives the agent the eyes tools', () => {
    const bare = chat('bare', []);
    const noTools = runCli([...bare.args, '--no-tools'], { env: { ...bare.runEnv, XDOG_CONFIG: path.join(root, 'plain.yaml') } });
    expect(noTools.status).toBe(0);
    const defaults = runCli(bare.args, { env: { ...bare.runEnv, XDOG_CONFIG: path.join(root, 'plain.yaml') } });
    expect(defaults.status).toBe(0);
    expect(bare.requests()[0]!.tools.map((tool) => tool.name)).not.toContain('eyes_look');
    expect(fs.existsSync(eyesLocations().socket)).toBe(false);
    expect(runCli(['eyes', 'status'], { env }).stderr).toContain('no Eyes daemon is running');
  });

  it('eyes_look returns a PNG of the requested viewport, eyes_read the page text, eyes_console the thrown error and the 404', async () => {
    const run = chat('look', [
      { name: 'eyes_look', arguments: { url: `${base}/`, width: 640, height: 400 } },
      { name: 'eyes_read', arguments: {} },
      { name: 'eyes_look', arguments: { target: 'broken', url: `${base}/broken` } },
      { name: 'eyes_console', arguments: { target: 'broken' } },
    ]);
    const result = await runCliAsync(run.args, { env: run.runEnv, cwd: work });
    expect(result.stderr).not.toContain('xdog:');
    expect(result.status).toBe(0);
    expect(run.requests()[0]!.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['eyes_look', 'eyes_read', 'eyes_console', 'eyes_close', 'eyes_watch', 'flow']));
    const [lookResult, readResult, , consoleResult] = run.results();
    expect(lookResult!.isError).toBe(false);
    const image = (lookResult!.content as Array<{ type: string; data?: string }>).find((part) => part.type === 'image')!;
    expect(pngSize(image.data!)).toEqual({ width: 640, height: 400 });
    expect(textOf(lookResult!)).toContain('"Eyes test"');
    expect(textOf(readResult!)).toContain('Hello Eyes');
    expect(textOf(readResult!)).toContain('The page text.');
    expect(textOf(consoleResult!)).toContain('boom from the page');
    expect(textOf(consoleResult!)).toMatch(/404 Not Found for GET .*\/missing\.png/);
  });

  it('two agents in two processes share one daemon, one Chromium and one target; closing both leaves the daemon running', async () => {
    const first = chat('share-a', [{ name: 'eyes_look', arguments: { target: 'shared', url: `${base}/counter` } }]);
    const second = chat('share-b', [{ name: 'eyes_look', arguments: { target: 'shared', url: `${base}/counter` } }]);
    const [a, b] = await Promise.all([runCliAsync(first.args, { env: first.runEnv, cwd: work }), runCliAsync(second.args, { env: second.runEnv, cwd: work })]);
    expect([a.status, b.status]).toEqual([0, 0]);
    // A third agent reads the shared target as it is, without navigating it.
    const third = chat('share-c', [{ name: 'eyes_read', arguments: { target: 'shared' } }]);
    expect(runCli(third.args, { env: third.runEnv }).status).toBe(0);
    expect(textOf(third.results()[0]!)).toContain('value one');
    const status = JSON.parse(runCli(['eyes', 'status', '--json'], { env }).stdout);
    expect(status.targets.filter((target: { name: string }) => target.name === 'shared')).toHaveLength(1);
    expect(alive(status.pid)).toBe(true);
    // One browser process: the daemon has exactly one Chromium child.
    const browsers = execFileSync('pgrep', ['-P', String(status.pid)], { encoding: 'utf8' }).trim().split('\n').filter((pid) => /chrom/.test(fs.readFileSync(`/proc/${pid}/comm`, 'utf8')));
    expect(browsers).toEqual([String(status.browser.pid)]);
  });

  it('hostile pages are bounded or refused with a clear tool error, and the daemon keeps serving', async () => {
    const run = chat('hostile', [
      { name: 'eyes_look', arguments: { target: 'loop', url: `${base}/loop` } },
      { name: 'eyes_look', arguments: { target: 'grow', url: `${base}/grow` } },
      { name: 'eyes_look', arguments: { target: 'away', url: `${base}/away` } },
      { name: 'eyes_look', arguments: { target: 'away', url: 'file:///etc/passwd' } },
      { name: 'eyes_read', arguments: { target: 'ok', url: `${base}/` } },
    ]);
    const result = await runCliAsync(run.args, { env: run.runEnv, cwd: work });
    expect(result.status).toBe(0);
    const [loop, grow, away, passwd, ok] = run.results();
    expect([loop, grow, away, passwd].map((message) => message!.isError)).toEqual([true, true, true, true]);
    expect(textOf(loop!)).toMatch(/loading the page took longer than \d+ s \(the page may loop\)/);
    expect(textOf(grow!)).toMatch(/crashed|took longer/);
    expect(textOf(away!)).toMatch(/Eyes refused to load .*\/away/);
    expect(textOf(passwd!)).toContain('/etc/passwd is outside the workspace');
    expect(ok!.isError).toBe(false);
    expect(textOf(ok!)).toContain('Hello Eyes');
  });

  it('watches on a page and a file see changes, survive kill -9 of the daemon, and resume after its restart', async () => {
    fs.writeFileSync(path.join(work, 'notes.txt'), 'first line\n');
    let client: EyesClient = await connectEyes();
    const page = (await client.call('watch', { kind: 'page_text', subject: `${base}/counter`, interval_seconds: 10, workspace: work })) as WatchRecord;
    const file = (await client.call('watch', { kind: 'file', subject: 'notes.txt', interval_seconds: 10, workspace: work })) as WatchRecord;
    const checked = async (id: string) => ((await client.call('list', {})) as WatchRecord[]).find((watch) => watch.id === id && watch.last_check_at !== null);
    await until('the baselines', async () => ((await checked(page.id)) && (await checked(file.id)) ? true : undefined));
    counter = 'two';
    fs.writeFileSync(path.join(work, 'notes.txt'), 'first line\nsecond line\n');
    const observed = async (id: string, count: number) => {
      const list = (await client.call('observations', { id })) as Array<{ summary: string; diff: string }>;
      return list.length >= count ? list : undefined;
    };
    const [pageChange] = await until('the page change', () => observed(page.id, 1));
    expect(pageChange!.diff).toContain('+value two');
    const [fileChange] = await until('the file change', () => observed(file.id, 1));
    expect(fileChange!.diff).toContain('+second line');

    const killed = client.pid;
    const chromium = tree(killed).slice(1);
    await client.close();
    process.kill(killed, 'SIGKILL');
    await until('the daemon to die', () => (alive(killed) ? undefined : true));
    counter = 'three';
    fs.writeFileSync(path.join(work, 'notes.txt'), 'third line\n');
    client = await ensureEyes();
    expect(client.pid).not.toBe(killed);
    expect(((await client.call('list', {})) as WatchRecord[]).map((watch) => watch.id)).toEqual(expect.arrayContaining([page.id, file.id]));
    const pageAgain = await until('the page change after the restart', () => observed(page.id, 2));
    expect(pageAgain[1]!.diff).toContain('+value three');
    const fileAgain = await until('the file change after the restart', () => observed(file.id, 2));
    expect(fileAgain[1]!.diff).toContain('+third line');
    await client.close();
    // The killed daemon's Chromium did not outlive it for long.
    await until('the old Chromium to exit', () => (chromium.some(alive) ? undefined : true), 30_000);
  });

  it('`xdog eyes list` and `cancel` manage watches; `xdog eyes stop` ends the daemon and every Chromium process', async () => {
    const listed = JSON.parse(runCli(['eyes', 'list', '--json'], { env }).stdout) as WatchRecord[];
    expect(listed.length).toBeGreaterThanOrEqual(2);
    const cancelled = runCli(['eyes', 'cancel', listed[0]!.id], { env });
    expect(cancelled.stdout).toBe(`cancelled ${listed[0]!.id}\n`);
    expect((JSON.parse(runCli(['eyes', 'list', '--json'], { env }).stdout) as WatchRecord[]).map((watch) => watch.id)).not.toContain(listed[0]!.id);
    // Make sure Chromium runs, then stop.
    const run = chat('before-stop', [{ name: 'eyes_look', arguments: { url: `${base}/` } }]);
    // Async: the page server lives in this process.
    expect((await runCliAsync(run.args, { env: run.runEnv })).status).toBe(0);
    expect(run.results()[0]!.isError, textOf(run.results()[0]!)).toBe(false);
    const status = JSON.parse(runCli(['eyes', 'status', '--json'], { env }).stdout);
    const processes = tree(status.pid);
    expect(processes.length).toBeGreaterThan(1);
    const stopped = await runCliAsync(['eyes', 'stop'], { env });
    expect(stopped.stdout, stopped.stderr).toBe(`Eyes daemon stopped (pid ${status.pid})\n`);
    await until('every Chromium process to exit', () => (processes.some(alive) ? undefined : true), 30_000);
    expect(runCli(['eyes', 'status'], { env }).status).not.toBe(0);
    expect(runCli(['eyes', 'logs'], { env }).stdout).toContain('Eyes daemon stopped');
  });
});
