/**
 * `xdog claw tui` on a real terminal (tmux) against a real gateway process
 * on the scripted faux model: what the user sees, and what the model was
 * sent (the faux log).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clawSandbox, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { repoRoot, runCli } from '../support/cli.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';

const tty = tmuxSession(`xdog-tui-${process.pid}`);
const gateways: GatewayProcess[] = [];

afterEach(async () => {
  tty.kill();
  for (const gateway of gateways.splice(0)) await gateway.kill9();
});

async function gatewayFor(sandbox: ClawSandbox): Promise<GatewayProcess> {
  const gateway = await startGateway(sandbox);
  gateways.push(gateway);
  return gateway;
}

/** Starts the TUI in tmux (100x30); its exit code is printed as EXIT=N. */
async function openTui(sandbox: ClawSandbox): Promise<void> {
  const env = Object.entries({ ...sandbox.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1' })
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  tty.start(`cd ${sandbox.root} && env ${env} ${process.execPath} ${path.join(repoRoot, 'bin/run.js')} claw tui; echo EXIT=$?; sleep 60`, { width: 100, height: 30 });
  await tty.waitFor('online');
}

/** The whole pane including what scrolled into the terminal's history. */
const history = (): string => tty.tmux('capture-pane', '-t', `xdog-tui-${process.pid}`, '-p', '-S', '-');

/** Waits until the pane's history shows `text`. */
async function seen(text: string, deadlineMs = 20_000): Promise<string> {
  await until(() => history().includes(text), () => `the TUI to show ${JSON.stringify(text)}:\n${history()}`, deadlineMs);
  return history();
}

const userTexts = (request: { messages: Array<{ role: string; content: unknown }> }): string[] =>
  request.messages.filter((message) => message.role === 'user').map((message) => (typeof message.content === 'string' ? message.content : (message.content as Array<{ type: string; text?: string }>).filter((part) => part.type === 'text').map((part) => part.text).join(' ')));

describe.skipIf(!hasTmux)('xdog claw tui', { timeout: 180_000 }, () => {
  it('streams replies, queues turns typed while busy, steers a two-tool turn, refuses the 51st turn and a 65 KiB steer, quits on Ctrl+C twice', async () => {
    const sandbox = clawSandbox();
    // Ctrl+G's editor: writes a steer of 65 KiB (832 lines of 80 x's) into the draft file.
    const editor = path.join(sandbox.root, 'big-steer.sh');
    fs.writeFileSync(editor, `#!/bin/sh\n{ printf '/steer '; i=0; while [ $i -lt 832 ]; do printf '%080d\\n' 0 | tr 0 x; i=$((i+1)); done; } > "$1"\n`, { mode: 0o700 });
    sandbox.env.VISUAL = editor;
    await gatewayFor(sandbox);
    await openTui(sandbox);

    tty.keys('long 40', 'Enter');
    await seen('w39');
    expect(history()).toContain('you long 40');

    tty.keys('slowtools 3', 'Enter');
    await seen('bash sleep 3; echo one');
    tty.keys('/steer mind the steer', 'Enter');
    await seen('accepted');
    tty.keys('/follow-up and then this', 'Enter');
    tty.keys('typed while busy', 'Enter');
    await seen('queued q1');
    await seen('echo: typed while busy');
    const requests = sandbox.requests();
    const steered = requests.findIndex((request) => userTexts(request).at(-1) === 'mind the steer');
    const followed = requests.findIndex((request) => userTexts(request).at(-1) === 'and then this');
    const queued = requests.findIndex((request) => userTexts(request).at(-1) === 'typed while busy');
    // The steer reaches the request right after the two tool results; the follow-up comes after it, the queued turn last.
    expect(requests[steered]!.messages.filter((message) => message.role === 'toolResult')).toHaveLength(2);
    expect(steered).toBeGreaterThan(0);
    expect(followed).toBeGreaterThan(steered);
    expect(queued).toBeGreaterThan(followed);

    // 50 turns wait on the client while a long turn runs; the 51st is refused on screen and stays in the editor.
    tty.keys('slow 30', 'Enter');
    await seen('bash sleep 30; echo slept');
    for (let batch = 0; batch < 5; batch++) tty.keys(...Array.from({ length: 10 }, (_, i) => [`item ${batch * 10 + i + 1}`, 'Enter']).flat());
    await seen('(50 waiting)');
    tty.keys('item 51', 'Enter');
    const refused = await seen('already holds 50 turns');
    expect(refused).not.toContain('(51 waiting)');
    expect(tty.screen()).toMatch(/│?\s*item 51/);

    // A steer over 64 KiB is refused before anything is sent.
    tty.keys('C-c');
    await seen('press Ctrl+C again to quit');
    tty.keys('C-u');
    tty.keys('C-g');
    await until(() => tty.screen().includes('x'.repeat(80)), 'the 65 KiB steer in the editor');
    tty.keys('Enter');
    await seen('over the 65536-byte limit of one input');
    expect(sandbox.requests().some((request) => userTexts(request).some((text) => text.startsWith('xxxx')))).toBe(false);

    // Controls that change the session wait for an idle group; the draft stays.
    // Ctrl+C clears the whole draft (the refused steer went back into it).
    tty.keys('C-c');
    tty.keys('/reset', 'Enter');
    await seen('/reset is blocked while a turn runs');
    expect(tty.screen()).toContain('/reset');
    tty.keys('C-u');

    // Esc aborts the running turn.
    tty.keys('Escape');
    await seen('the turn was aborted');
    tty.keys('C-c');
    tty.keys('C-c');
    await seen('EXIT=0');
  });

  it('/fork 2 then /goto 1 change what the next request carries; /sessions, /new and unsupported controls keep the draft', async () => {
    const sandbox = clawSandbox();
    fs.mkdirSync(path.join(sandbox.root, 'config', 'xdog', 'claw'), { recursive: true });
    fs.writeFileSync(path.join(sandbox.root, 'config', 'xdog', 'claw', 'keybindings.json'), JSON.stringify({ steer: 'ctrl+l' }));
    await gatewayFor(sandbox);
    await openTui(sandbox);
    await seen('keybindings.json: key "steer": "ctrl+l" is reserved to');

    tty.keys('alpha', 'Enter');
    await seen('echo: alpha');
    tty.keys('beta', 'Enter');
    await seen('echo: beta');
    tty.keys('/fork 2', 'Enter');
    await seen('forked at message 2');
    tty.keys('/goto 1', 'Enter');
    await seen('moved back to message 1');
    tty.keys('gamma', 'Enter');
    await seen('echo: gamma');
    expect(userTexts(sandbox.requests().at(-1)!)).toEqual(['alpha', 'gamma']);
    expect(JSON.stringify(sandbox.requests().at(-1))).not.toContain('beta');

    // /tree reads the flat pages: the fork after "alpha" indents its two branches, gamma's is on the path.
    tty.keys('/tree', 'Enter');
    await seen('session tree (* on the active path');
    expect(history()).toMatch(/\n {2}\* \d+ message user: gamma/);
    expect(history()).toMatch(/\n\* \d+ message user: alpha/);
    tty.keys('q');
    await until(() => !tty.screen().includes('session tree (*'), 'the tree view to close');

    tty.keys('/name forked', 'Enter');
    await seen('the session is now named "forked"');
    expect(tty.screen()).toMatch(/main · forked · faux\/demo/);

    // The transcript view searches literally, ignoring case; n goes to the next match.
    tty.keys('/transcript GAMMA', 'Enter');
    await tty.waitFor('"GAMMA": 1/2');
    tty.keys('n');
    await tty.waitFor('"GAMMA": 2/2');
    tty.keys('q');
    await until(() => !tty.screen().includes('"GAMMA"'), 'the transcript view to close');

    // Two short turns are too little to summarize: the gateway skips, the TUI says so.
    tty.keys('/compact keep the names', 'Enter');
    await seen('nothing to compact (too-small)');

    tty.keys('/new', 'Enter');
    await seen('new session');
    tty.keys('/sessions', 'Enter');
    const browser = await seen('Enter activate');
    expect(browser.match(/\d+ msgs/g)?.length).toBe(3);
    tty.keys('Escape');
    await until(() => !tty.screen().includes('Enter activate'), 'the browser to close');
    tty.keys('/help fork', 'Enter');
    await seen('a new session holding the first N messages');
  });

  it('keeps the draft when the gateway dies mid-run and resends nothing after it comes back', async () => {
    const sandbox = clawSandbox();
    const first = await gatewayFor(sandbox);
    await openTui(sandbox);
    tty.keys('slow 20', 'Enter');
    await seen('bash sleep 20; echo slept');
    tty.keys('my unsent draft');
    await until(() => tty.screen().includes('my unsent draft'), 'the draft');
    const before = sandbox.requests().length;
    await first.kill9();
    await seen('the connection to the gateway was lost');
    tty.keys('Enter');
    await seen('not connected to the gateway; nothing was sent');
    expect(tty.screen()).toContain('my unsent draft');

    await gatewayFor(sandbox);
    await seen('reconnected; nothing was resent');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(sandbox.requests().length).toBe(before);
    expect(tty.screen()).toContain('my unsent draft');
    expect(sandbox.requests().filter((request) => userTexts(request).includes('slow 20'))).toHaveLength(1);
  });

  it('/share writes a redacted standalone page, /export writes 0600 files and never overwrites, images over the limits are refused', async () => {
    const sandbox = clawSandbox();
    await gatewayFor(sandbox);
    await openTui(sandbox);
    const key = 'sk-proj-PLANTEDsecretKEY0123456789';
    tty.keys(`remember ${key}`, 'Enter');
    await seen('echo: remember');

    const page = path.join(sandbox.root, 'page.html');
    tty.keys(`/share ${page}`, 'Enter');
    await seen(`review before writing ${page}`);
    tty.keys('w');
    await seen('shared page written to');
    const html = fs.readFileSync(page, 'utf8');
    expect(html).toContain('Content-Security-Policy');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain(key);
    expect(html).toContain('[redacted]');
    expect(fs.statSync(page).mode & 0o777).toBe(0o600);

    const md = path.join(sandbox.root, 'chat.md');
    tty.keys(`/export ${md} md`, 'Enter');
    await seen(`review before writing ${md}`);
    tty.keys('w');
    await seen(`exported to ${md}`);
    expect(fs.statSync(md).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(md, 'utf8')).toContain('echo: remember [redacted]');
    tty.keys('C-u', `/export ${md} md`, 'Enter');
    await seen('already exists; it was not overwritten');
    tty.keys('C-u', `/export ${path.join(sandbox.root, 'nope', 'x.txt')}`, 'Enter');
    await seen('does not exist');

    // A PNG signature and IHDR (1x1): the TUI reads the size from the header.
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
    for (let i = 1; i <= 5; i++) fs.writeFileSync(path.join(sandbox.root, `i${i}.png`), png);
    fs.writeFileSync(path.join(sandbox.root, 'big.png'), Buffer.concat([png, Buffer.alloc(11 * 1024 * 1024)]));
    tty.keys('C-u', `/attach ${path.join(sandbox.root, 'big.png')}`, 'Enter');
    await seen('over the 10 MiB limit of one image');
    for (let i = 1; i <= 4; i++) {
      tty.keys('C-u', `/attach ${path.join(sandbox.root, `i${i}.png`)}`, 'Enter');
      await seen(`attached a${i}`);
    }
    tty.keys('C-u', `/attach ${path.join(sandbox.root, 'i5.png')}`, 'Enter');
    await seen('a draft holds at most 4 images');
    expect(tty.screen()).toContain('4 image(s) attached');

    // Sent, the images reach the model; the chat shows their count, never their bytes.
    tty.keys('C-u', 'look at these', 'Enter');
    await seen('you look at these');
    await seen('[4 images]');
    const last = sandbox.requests().at(-1)!.messages.at(-1) as { content: Array<{ type: string; data?: string }> };
    expect(last.content.filter((part) => part.type === 'image')).toHaveLength(4);
    expect(history()).not.toContain(png.toString('base64').slice(0, 12));
    expect(tty.screen()).not.toContain('image(s) attached');
  });

  it('/extensions starts and lists the extensions, /ext-ID-NAME runs one with Tab completion, a quarantined one shows why', async () => {
    const sandbox = clawSandbox('extensions: [probe]\n');
    const folder = path.join(sandbox.root, 'probe');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'probe', version: '1.0.0', type: 'module', xdog: { extension: './index.js' } }));
    fs.writeFileSync(
      path.join(folder, 'index.js'),
      [
        'export default (api) => {',
        "  api.command('hello', { description: 'greets', run: (args) => 'hello ' + args, complete: (prefix) => ['world', 'there'].filter((word) => word.startsWith(prefix)) });",
        "  api.command('crash', { run: () => { throw new Error('the probe broke'); } });",
        '};',
      ].join('\n'),
    );
    const installed = runCli(['plugins', 'install', folder], { env: sandbox.env, cwd: sandbox.root });
    expect(installed.status, installed.stderr).toBe(0);
    await gatewayFor(sandbox);
    await openTui(sandbox);

    tty.keys('/extensions', 'Enter');
    await seen('probe 1.0.0: active');
    expect(history()).toContain('commands: /ext-probe-hello, /ext-probe-crash');
    tty.keys('q');

    tty.keys('/ext-probe-hello w');
    // The suggestion is for the token at the cursor; Tab puts it in place of that token.
    await seen('→ world');
    tty.keys('Tab');
    await seen('/ext-probe-hello world');
    tty.keys('Enter');
    await seen('hello world');
    tty.keys('q');

    tty.keys('/ext-probe-crash', 'Enter');
    await seen('the probe broke');
    // A refused command goes back to the editor: Ctrl+C once clears it.
    tty.keys('C-c');
    tty.keys('/extensions', 'Enter');
    await seen('probe 1.0.0: quarantined (its command /ext-probe-crash failed: the probe broke)');
  });

  it('shows the whole of a 300k-word reply and a 9 MB one, and stays responsive', async () => {
    const sandbox = clawSandbox();
    const gateway = await gatewayFor(sandbox);
    await openTui(sandbox);
    // The visible screen only: the history of megabytes of text is too slow to capture 40 times a second.
    // A timeout shows the screen and what the gateway logged: which side was stuck is the diagnosis.
    const onScreen = (text: string, deadlineMs: number): Promise<void> =>
      until(() => tty.screen().includes(text), () => `the screen to show ${JSON.stringify(text)}:\n${tty.screen()}\n--- gateway log:\n${gateway.log().split('\n').slice(-30).join('\n')}`, deadlineMs);
    tty.keys('long 300000', 'Enter');
    await onScreen('w299999', 360_000);
    await onScreen('idle', 180_000);
    tty.keys('bigtext 9000000', 'Enter');
    // The reply's last word is the 9,000th (number 8999).
    await onScreen('8999:', 180_000);
    await onScreen('idle', 180_000);
    // Responsive: a new session (the long one is over the faux model's context window) answers the next prompt.
    tty.keys('/new', 'Enter');
    // Typed before the switch is shown, the prompt would carry the old session and be refused as stale.
    await onScreen('new session:', 120_000);
    tty.keys('still here', 'Enter');
    await onScreen('echo: still here', 120_000);
  }, 1_200_000);

  it('draws the tool lines of a run whose tool-call ids repeat a run from before a gateway restart', async () => {
    const sandbox = clawSandbox();
    const send = (text: string) => runCli(['claw', 'send', text], { env: sandbox.env, cwd: sandbox.root });
    const first = await gatewayFor(sandbox);
    expect(send('run echo before-restart').status).toBe(0);
    await first.stop();
    await gatewayFor(sandbox);
    expect(send('run echo after-restart').status).toBe(0);
    await openTui(sandbox);
    await seen('done: after-restart');
    expect(history()).toMatch(/✓ bash echo before-restart \(2 lines/);
    expect(history()).toMatch(/✓ bash echo after-restart \(2 lines/);
  });
});

