/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core)
 * against a real gateway process on the faux model, served by the built
 * `xdog claw web`: log in with the one-time link (a second use is refused),
 * see a reply stream in before its run ends, queue a prompt and abort the
 * running one, fork from the tree and see the next request's context in the
 * faux log, answer a pending approval, and see the cost chart with the faux
 * prices. Each page is saved as a screenshot under test-artifacts/web/ (or
 * $XDOG_TEST_ARTIFACTS).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clawSandbox, connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { repoRoot, runCli } from '../support/cli.js';

const CHROMIUM = process.env.XDOG_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = process.env.XDOG_TEST_ARTIFACTS ?? path.join(repoRoot, 'test-artifacts', 'web');
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let sandbox: ClawSandbox;
let gateway: GatewayProcess;
let web: ChildProcess;
let firstLink: string;
let browser: Browser;
let page: Page;
let opsWorkspace: string;

/** Starts the built `xdog claw web --port 0` and resolves with the login link it prints. */
function startWeb(): Promise<string> {
  web = spawn(process.execPath, [path.join(repoRoot, 'bin/run.js'), 'claw', 'web', '--port', '0'], { cwd: sandbox.root, env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', ...sandbox.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  web.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`xdog claw web printed no link:\n${out}\n${err}`)), 60_000);
    web.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const link = /(http:\/\/127\.0\.0\.1:\d+\/#[\w-]{43})/.exec(out);
      if (link) {
        clearTimeout(timer);
        resolve(link[1]);
      }
    });
    web.once('exit', (code) => reject(new Error(`xdog claw web exited (${code}):\n${out}\n${err}`)));
  });
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function groupStatus(group = 'main'): Promise<{ busy: boolean; activeSessionId: string | null }> {
  const client = await connect(sandbox);
  try {
    return (await client.call('group.status', { group })) as { busy: boolean; activeSessionId: string | null };
  } finally {
    await client.close();
  }
}

const lastUserTexts = (): string[] =>
  (sandbox.requests().at(-1)?.messages ?? []).filter((message) => message.role === 'user').map((message) => (typeof message.content === 'string' ? message.content : (message.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('')));

async function send(text: string, button = 'Send'): Promise<void> {
  await page.getByLabel('message').fill(text);
  await page.getByRole('button', { name: button, exact: true }).click();
}

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  sandbox = clawSandbox();
  opsWorkspace = path.join(sandbox.root, 'ops');
  fs.mkdirSync(opsWorkspace);
  fs.appendFileSync(sandbox.configFile, `    ops:\n      workspace: ${opsWorkspace}\n      model: faux/demo\n      enabled_tools: [bash]\n      approvals: { mode: mutating }\nmodels:\n  - { id: faux/demo, price: { input: 2, output: 10 } }\n`);
  gateway = await startGateway(sandbox);
  firstLink = await startWeb();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 60_000 });
  page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  // Deadlines that hold when the suite's other worker renders a 300k-word reply beside this browser.
  page.setDefaultTimeout(90_000);
}, 180_000);

afterEach(async (context) => {
  if (context.task.result?.state === 'fail') await page?.screenshot({ path: path.join(ARTIFACTS, `failed-${context.task.name.slice(0, 30).replace(/\W+/g, '-')}.png`), fullPage: true }).catch(() => undefined);
});

afterAll(async () => {
  await browser?.close();
  web?.kill('SIGTERM');
  await gateway?.stop();
});

describe.skipIf(!fs.existsSync(CHROMIUM))('xdog claw web in Chromium', { timeout: 300_000 }, () => {
  it('logs in through the one-time link; a second use of it is refused, xdog claw web open gives a new one', async () => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
    await page.goto(firstLink);
    await expect.poll(() => page.url()).toMatch(/#\/chat$/);
    await page.getByRole('status').filter({ hasText: 'idle' }).waitFor();
    await shot('chat-empty');

    const second = await browser.newPage();
    await second.goto(firstLink);
    await second.getByText('already used or has expired').waitFor();
    await second.getByText('You are not logged in').waitFor();
    await second.close();

    const opened = runCli(['claw', 'web', 'open', '--json'], { env: sandbox.env, cwd: sandbox.root });
    expect(opened.status, opened.stderr).toBe(0);
    expect(JSON.parse(opened.stdout).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#[\w-]{43}$/);
    expect(JSON.parse(opened.stdout).url).not.toBe(firstLink);
    // Without a browser to start (no $BROWSER, no display) it prints the link.
    const noBrowserEnv: NodeJS.ProcessEnv = { ...process.env, ...sandbox.env, BROWSER: '', DISPLAY: '', WAYLAND_DISPLAY: '' };
    const printed = runCli(['claw', 'web', 'open'], { env: noBrowserEnv, cwd: sandbox.root });
    expect(printed.status, printed.stderr).toBe(0);
    expect(printed.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#[\w-]{43}\n$/);
    // With $BROWSER it starts that browser with a fresh link and returns at once (this one stays up): the link it got logs a browser in.
    const given = path.join(sandbox.root, 'browser-got.txt');
    const fakeBrowser = path.join(sandbox.root, 'fake-browser');
    fs.writeFileSync(fakeBrowser, `#!/bin/sh\nprintf '%s %s\\n' "$$" "$1" > ${given}.tmp && mv ${given}.tmp ${given}\nexec sleep 600\n`, { mode: 0o755 });
    const launched = runCli(['claw', 'web', 'open'], { env: { ...noBrowserEnv, BROWSER: `${fakeBrowser} %s` }, cwd: sandbox.root });
    expect(launched.status, launched.stderr).toBe(0);
    expect(launched.stdout).toBe(`Opened the dashboard with ${fakeBrowser} (the link it got works once; run this again for another)\n`);
    await until(() => fs.existsSync(given), 'the fake browser to be started with the link', 30_000);
    const [browserPid, browserLink] = fs.readFileSync(given, 'utf8').trim().split(' ');
    process.kill(Number(browserPid), 'SIGTERM');
    expect(browserLink).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#[\w-]{43}$/);
    const third = await browser.newPage();
    await third.goto(browserLink!);
    await third.getByRole('status').filter({ hasText: 'idle' }).waitFor();
    await third.close();

    const status = runCli(['claw', 'status'], { env: sandbox.env, cwd: sandbox.root });
    expect(status.stdout).toMatch(/^web: dashboard at http:\/\/127\.0\.0\.1:\d+ \(pid \d+\)$/m);
    expect(errors).toEqual([]);
  });

  it('streams the reply in: its text shows before the run ends', async () => {
    await send('progress sleep 6');
    await page.locator('.msg.assistant', { hasText: 'working on it' }).first().waitFor();
    // The text is on the page while the gateway still runs the turn (the bash call sleeps).
    expect((await groupStatus()).busy).toBe(true);
    await shot('chat-streaming');
    await page.locator('.msg.assistant', { hasText: 'done: ' }).waitFor({ timeout: 120_000 });
    await page.getByRole('status').filter({ hasText: 'idle' }).waitFor();
  });

  it('queues a second prompt and aborts the first; the queued one then runs', async () => {
    await send('progress sleep 60');
    await page.locator('.msg.assistant', { hasText: 'working on it' }).nth(1).waitFor();
    await send('second prompt', 'Queue');
    await page.getByRole('region', { name: 'queue' }).getByText('second prompt').waitFor();
    await shot('chat-queue');
    await page.getByRole('button', { name: 'Abort' }).click();
    await page.locator('.msg.assistant', { hasText: 'echo: second prompt' }).waitFor({ timeout: 120_000 });
    expect(lastUserTexts().at(-1)).toBe('second prompt');
    await until(async () => !(await groupStatus()).busy, 'the group to be idle');
    await shot('chat-after-abort');
  });

  it('forks a session from the tree; the next request holds only the forked messages', async () => {
    const before = (await groupStatus()).activeSessionId;
    await page.getByRole('link', { name: 'Sessions' }).click();
    // Checkpoint 4 is the reply to the first prompt: the fork holds messages 1..4.
    const point = page.locator('.checkpoints li[data-index="4"]');
    await point.getByText('done:').waitFor();
    await page.getByRole('heading', { name: 'Tree' }).waitFor();
    await shot('sessions');
    await point.getByRole('button', { name: 'fork at 4' }).click();
    await until(async () => (await groupStatus()).activeSessionId !== before, 'the fork to become the active session');
    await page.locator('tr', { hasText: `fork of ${before!.slice(0, 8)}` }).waitFor();
    await page.getByRole('link', { name: 'Chat' }).click();
    const requestsBefore = sandbox.requests().length;
    await send('after fork');
    await page.locator('.msg.assistant', { hasText: 'echo: after fork' }).waitFor();
    expect(sandbox.requests().length).toBe(requestsBefore + 1);
    // The fork holds the first prompt and its reply only: neither later prompt reaches the model.
    expect(lastUserTexts()).toEqual(['progress sleep 6', 'after fork']);
  });

  it('answers a pending approval', async () => {
    await page.getByRole('link', { name: 'Chat', exact: true }).click();
    await page.getByLabel('group').selectOption('ops');
    await page.getByRole('status').filter({ hasText: 'idle' }).waitFor();
    await send('run touch approved.txt');
    await page.getByRole('link', { name: 'Approvals' }).click();
    const card = page.locator('.approval', { hasText: 'touch approved.txt' });
    await card.waitFor();
    await shot('approvals');
    await card.getByRole('button', { name: 'Approve' }).click();
    await until(() => fs.existsSync(path.join(opsWorkspace, 'approved.txt')), 'the approved call to run');
    await page.getByText('Nothing waits for an answer.').waitFor();
    await page.getByRole('link', { name: 'Chat' }).click();
    await page.locator('.msg.assistant', { hasText: 'done: ' }).waitFor({ timeout: 120_000 });
  });

  it('shows a cost chart with the faux prices', async () => {
    await page.getByLabel('group').selectOption('main');
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.locator('.uplot canvas').first().waitFor();
    const cli = runCli(['claw', 'usage', '--group', 'main', '--json'], { env: sandbox.env, cwd: sandbox.root });
    expect(cli.status, cli.stderr).toBe(0);
    const [row] = JSON.parse(cli.stdout) as Array<{ cost: number; input: number; output: number }>;
    expect(row.cost).toBeCloseTo((row.input * 2 + row.output * 10) / 1e6, 9);
    await page.locator('td.cost', { hasText: `$${row.cost.toFixed(6)}` }).first().waitFor();
    await shot('usage');
  });

  it('steers the running turn and names the session', async () => {
    await page.getByRole('link', { name: 'Chat', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'idle' }).waitFor();
    const count = await page.locator('.msg.assistant', { hasText: 'working on it' }).count();
    // The tool call waits (at most a minute) for the file the test writes once the gateway took the steer, so the run is still going when it lands.
    await send('progress for i in $(seq 600); do [ -e steer-taken ] && break; sleep 0.1; done');
    await page.locator('.msg.assistant', { hasText: 'working on it' }).nth(count).waitFor();
    await send('steered in', 'Steer');
    await expect.poll(() => page.getByLabel('message').inputValue(), { timeout: 90_000 }).toBe('');
    fs.writeFileSync(path.join(sandbox.workspace, 'steer-taken'), '');
    await until(() => lastUserTexts().includes('steered in'), 'the steer to reach the model in the same run', 60_000);
    await page.getByRole('status').filter({ hasText: 'idle' }).waitFor({ timeout: 120_000 });
    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.getByLabel('Name').fill('web named');
    await page.getByRole('button', { name: 'Set name' }).click();
    await page.locator('tr.active', { hasText: 'web named' }).waitFor();
    // Export downloads the transcript (transcript.read in chunks): the header line, then the entries.
    const download = page.waitForEvent('download');
    await page.locator('tr.active').getByRole('button', { name: 'Export' }).click();
    const file = await (await download).path();
    const [header, ...entries] = fs.readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(header.type).toBe('xdog.claw.transcript');
    expect(entries.some((entry) => JSON.stringify(entry).includes('steered in'))).toBe(true);
  });

  it('runs a schedule now and shows its history; searches memory', async () => {
    const added = runCli(['claw', 'schedule', 'add', 'nightly', '-g', 'main', '-p', 'scheduled hello', '--cron', '0 3 * * *'], { env: sandbox.env, cwd: sandbox.root });
    expect(added.status, added.stderr).toBe(0);
    const remembered = runCli(['claw', 'memory', 'add', '-g', 'main', 'the deploy key lives in the vault'], { env: sandbox.env, cwd: sandbox.root });
    expect(remembered.status, remembered.stderr).toBe(0);
    await page.getByRole('link', { name: 'Schedules' }).click();
    const row = page.locator('tr', { hasText: 'nightly' }).first();
    await row.getByRole('button', { name: 'Run now' }).click();
    await page.locator('tr[data-status="completed"]', { hasText: 'manual' }).waitFor({ timeout: 120_000 });
    expect(lastUserTexts().at(-1)).toContain('scheduled hello');
    await shot('schedules');
    await page.getByRole('link', { name: 'Memory' }).click();
    await page.getByLabel('Search').fill('vault');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('the deploy key lives in the vault').waitFor();
    await shot('memory');
  });

  it('shows the groups, workers and status pages', async () => {
    for (const [link, name, check] of [
      ['Groups', 'groups', 'ops'],
      ['Workers', 'workers', 'Lease'],
      ['Extensions & channels', 'status', 'Capabilities'],
    ] as const) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('region').getByText(check).first().waitFor();
      await shot(name);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'Chat', exact: true }).click();
    await page.locator('.msg').first().waitFor();
    await shot('chat-phone');
  });
});
