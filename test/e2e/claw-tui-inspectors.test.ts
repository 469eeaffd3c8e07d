/**
 * The claw features' views in `xdog claw tui`, on a real terminal (tmux, a
 * private server) against one real gateway shared by the file's tests (the
 * faux model): the model and thinking pickers and their cycling keys, the
 * plan inspector following the model's update_plan live, skills, the child
 * agents' roster, the tools inventory, the read-only scope, the workspace
 * diff, the draft kept across runs and /copy through OSC 52. Assertions are
 * on what the pane shows, and on the gateway's state through the CLI.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clawSandbox, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { runCli } from '../support/cli.js';
import { hasTmux, tmuxSession } from '../support/tmux.js';
import { screenShows, startClawTui } from '../support/claw-tui.js';

const name = `xdog-tui-inspect-${process.pid}`;
/** Each TUI run gets a fresh private tmux server (a server just killed may still be exiting). */
let runs = 0;
let tty = tmuxSession(name, `${name}-0`);
let sandbox: ClawSandbox;
let gateway: GatewayProcess | undefined;

const claw = (...args: string[]) => runCli(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
const history = (): string => tty.tmux('capture-pane', '-t', name, '-p', '-S', '-');
const shows = (test: string | RegExp, deadlineMs?: number): Promise<string> => screenShows(tty, test, deadlineMs);
const footer = (): string => tty.screen().trimEnd().split('\n').at(-1) ?? '';

async function openTui(): Promise<void> {
  tty = tmuxSession(name, `${name}-${++runs}`);
  await startClawTui(tty, sandbox);
}

function writeSkill(dir: string, slug: string, body: string): void {
  fs.mkdirSync(path.join(dir, slug), { recursive: true });
  fs.writeFileSync(path.join(dir, slug, 'SKILL.md'), `---\nname: ${slug}\ndescription: the ${slug} skill\n---\n\n${body}\n`);
}

describe.skipIf(!hasTmux)('xdog claw tui: inspectors and commands of the claw features', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    sandbox = clawSandbox();
    const skills = path.join(sandbox.root, 'skills');
    writeSkill(skills, 'style', 'STYLE-BODY: answer in one short line.');
    fs.writeFileSync(
      sandbox.configFile,
      fs.readFileSync(sandbox.configFile, 'utf8').replace('enabled_tools: [bash, read]', 'enabled_tools: [bash, read, write, grep, update_plan]') +
        ['models:', '  - { id: faux/demo, reasoning: [low, high] }', '  - { id: faux/second, reasoning: [medium] }', 'skills:', '  dirs:', `    team: ${skills}`, ''].join('\n'),
    );
    gateway = await startGateway(sandbox);
    expect(claw('send', 'hello').status).toBe(0);
  }, 120_000);
  afterEach(() => tty.kill());
  afterAll(async () => {
    await gateway?.stop();
  });

  it('/model lists the served models and picks one, Ctrl+P cycles; /thinking picks a level, Shift+Tab cycles', async () => {
    await openTui();
    tty.keys('/model', 'Enter');
    const picker = await shows(/models \(current faux\/demo\)[^]*›\* faux\/demo +thinking low\/high/);
    expect(picker).toContain('faux/second');
    tty.keys('Down');
    await shows(/› {2}faux\/second/);
    tty.keys('Enter');
    await shows('model: faux/second');
    expect(footer()).toContain('faux/second');

    tty.keys('C-p');
    await until(() => !footer().includes('faux/second'), () => `Ctrl+P to change the model:\n${tty.screen()}`);
    tty.keys('/model faux/demo', 'Enter');
    await shows(/faux\/demo · thinking off/);

    tty.keys('/thinking', 'Enter');
    const levels = await shows(/thinking levels of faux\/demo \(current off\)[^]*›\* off[^]*high/);
    expect(levels).toContain('high');
    tty.keys('Down', 'Enter');
    await shows(/faux\/demo · thinking low/);
    // Shift+Tab: low → high → off.
    tty.keys('BTab');
    await shows(/faux\/demo · thinking high/);
    tty.keys('BTab');
    await shows(/faux\/demo · thinking off/);
  });

  it('/plan: the inspector follows the model writing its steps, executes the shown revision and stops', async () => {
    await openTui();
    tty.keys('/plan start tidy the notes', 'Enter');
    await shows('plan planning, revision 1');
    tty.keys('/plan', 'Enter');
    await shows('plan · planning · revision 1');
    expect(tty.screen()).toContain('(no steps yet)');
    // The model writes its steps from another client's prompt; the open inspector shows them.
    const calls = JSON.stringify([{ name: 'update_plan', arguments: { revision: 1, steps: [{ text: 'read the notes', status: 'completed' }, { text: 'rewrite them', status: 'pending' }] } }]);
    expect(claw('send', `calls ${calls}`).status).toBe(0);
    await shows('plan · planning · revision 2');
    expect(tty.screen()).toContain('2. [ ] rewrite them');
    tty.keys('e');
    await shows('plan · executing · revision 3');
    expect(claw('plan').stdout).toContain('plan (executing, revision 3): tidy the notes');
    tty.keys('s');
    await shows('no plan is active in this session');
    tty.keys('q');
    await shows('plan mode ended');
  });

  it('/skills loads and unloads a skill for the session', async () => {
    await openTui();
    tty.keys('/skills', 'Enter');
    await shows(/skills \(\* loaded\).*none loaded \(\d+ available\)/);
    // The packaged skills come first; the team directory's "style" is further down.
    await until(() => {
      if (/› {2}style/.test(tty.screen())) return true;
      tty.keys('Down');
      return false;
    }, 'the selection to reach "style"');
    tty.keys('Enter');
    await shows(/›\* style {2}loaded · the style skill/);
    expect(JSON.parse(claw('skills', 'list', '--json').stdout).session).toEqual(['style']);
    tty.keys('Escape');
    await until(() => !tty.screen().includes('skills (* loaded)'), 'the skills list to close');
    tty.keys('/skills unload style', 'Enter');
    await shows(/skills: none loaded \(\d+ available\)/);
  });

  it('/agents: a live roster of the children, changes to a child\'s queued inputs, cancel from it, and a finished child\'s transcript', async () => {
    await openTui();
    tty.keys('/agents start --inherit slow 60', 'Enter');
    const id = /started child (\S+) \(inherit\)/.exec(await shows(/started child \S+ \(inherit\)/))![1]!;
    // Its model call holds its turn, so follow-ups wait in its queue: move, remove and edit them from the TUI.
    const png = path.join(sandbox.root, 'child.png');
    fs.writeFileSync(png, Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex'));
    const [one, two] = ['one', 'two'].map((text) => JSON.parse(claw('agents', 'follow-up', '--json', ...(text === 'one' ? ['--image', png] : []), id, text).stdout).id as number);
    tty.keys(`/agents move-input ${id} ${two} up`, 'Enter');
    await shows(`child ${id}: input #${two} moved up; queued now: #${two} followUp, #${one} followUp`);
    // Removed, it comes back whole into the (empty) editor: its text and its image.
    tty.keys(`/agents remove-input ${id} #${one}`, 'Enter');
    await shows(`child ${id}: input #${one} removed; its text and 1 image are back in the editor; queued now: #${two} followUp`);
    await shows('1 image(s) attached');
    // With a draft (here the returned image, the text cleared) a removal is refused before anything changes.
    tty.keys('C-u', `/agents remove-input ${id} ${two}`, 'Enter');
    await shows('/agents remove-input puts the input back in the editor, and the editor holds a draft (text or images)');
    tty.keys('C-u', '/attachments clear', 'Enter');
    await until(() => !tty.screen().includes('image(s) attached'), 'the attachments cleared');
    tty.keys(`/agents edit-input ${id} ${two} two, edited`, 'Enter');
    await shows(`child ${id}: input #${two} edited`);
    tty.keys(`/agents move-input ${id} ${two} sideways`, 'Enter');
    await shows('/agents move-input needs ID N up|down');
    tty.keys('C-u'); // a refused command stays in the editor
    const journal = JSON.parse(claw('agents', 'inspect', '--json', id).stdout) as { inputs: Array<{ text: string; status: string; images: number }> };
    expect(journal.inputs.map((input) => [input.text, input.status, input.images])).toEqual([['two, edited', 'accepted', 0], ['one', 'removed', 1]]);
    tty.keys('/agents start say hi to the child', 'Enter');
    await until(() => (history().match(/started child/g) ?? []).length === 2, 'the second child to start');
    tty.keys('/agents', 'Enter');
    await shows(/child agents .*\n(?:.*\n)*.*running .*slow 60/);
    // Live: the second child completes while the roster is open.
    await shows(/completed .*say hi to the child/);
    tty.keys('c');
    await shows(/cancelled .*slow 60/);
    tty.keys('Down', 'Enter');
    const transcript = await shows('echo: say hi to the child');
    expect(transcript).toMatch(/child \S+ \(redacted\)/);
  });

  it('/agents inspect shows a child\'s transcript over 4 MiB, read in verified chunks (agents.source)', async () => {
    // The child writes a 4.5 MB file: the call's arguments make its stored transcript big; the page shows them cut.
    const started = claw('agents', 'start', '--inherit', '--json', 'bigwrite big.txt 4500000');
    expect(started.status, started.stderr).toBe(0);
    const { id } = JSON.parse(started.stdout) as { id: string };
    expect(claw('agents', 'wait', id).status).toBe(0);
    expect(fs.statSync(path.join(sandbox.workspace, 'big.txt')).size).toBeGreaterThan(4 * 1024 * 1024);
    fs.rmSync(path.join(sandbox.workspace, 'big.txt')); // the workspace is shared with the /diff test
    await openTui();
    tty.keys(`/agents inspect ${id}`, 'Enter');
    const page = await shows(/child \S+ \(redacted\)[^]*transcript:[^]*\[tool call\] write \{"path":"big\.txt"[^]*wrote \d+ bytes to big\.txt/, 90_000);
    expect(page).toContain('bigwrite big.txt 4500000');
  });

  it('/tools searches the inventory and shows one tool\'s parameters; /readonly changes the scope', async () => {
    await openTui();
    tty.keys('/tools grep', 'Enter');
    const found = await shows(/tools the agent gets · filter: grep · \d+ of \d+/);
    expect(found).toMatch(/› {2}grep {2}Search file contents/);
    expect(found).not.toMatch(/^\s*bash {2}/m);
    tty.keys('Enter');
    await shows('tool grep');
    expect(tty.screen()).toContain('"pattern"');
    tty.keys('q');
    await until(() => !tty.screen().includes('tool grep'), 'the tool view to close');

    tty.keys('/readonly on', 'Enter');
    await shows('read-only scope: on (tools that write are denied)');
    expect(JSON.parse(claw('readonly', '--json').stdout)).toMatchObject({ readOnly: true });
    tty.keys('/readonly off', 'Enter');
    await shows('read-only scope: off');
  });

  it('Alt+D shows the workspace\'s git changes, r refreshes them; a repository config that would run a program is refused', async () => {
    const git = (...args: string[]) => execFileSync('git', ['-C', sandbox.workspace, '-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], { encoding: 'utf8' });
    git('init', '-q');
    fs.writeFileSync(path.join(sandbox.workspace, 'tracked.txt'), 'first line\n');
    git('add', 'tracked.txt');
    git('commit', '-qm', 'start');
    fs.appendFileSync(path.join(sandbox.workspace, 'tracked.txt'), 'ADDED-LINE\n');
    await openTui();
    tty.keys('M-d');
    await shows(/diff of .*workspace · 1 changed file/);
    expect(tty.screen()).toContain('+ADDED-LINE');
    fs.writeFileSync(path.join(sandbox.workspace, 'new-file.txt'), 'x\n');
    tty.keys('r');
    await shows(/refreshed/);
    expect(tty.screen()).toContain('?? new-file.txt');
    tty.keys('q');
    git('config', 'filter.evil.clean', 'touch PWNED');
    tty.keys('/diff', 'Enter');
    await shows('filter.evil.clean, through which git would run a program outside the sandbox');
    expect(fs.existsSync(path.join(sandbox.workspace, 'PWNED'))).toBe(false);
    fs.rmSync(path.join(sandbox.workspace, '.git'), { recursive: true, force: true });
  });

  it('keeps the draft when the TUI quits and puts it back at the next start', async () => {
    await openTui();
    tty.keys('a draft worth keeping');
    await shows('a draft worth keeping');
    tty.keys('C-c', 'C-c');
    await shows('your draft was kept in');
    await shows('EXIT=0');
    tty.kill();
    await openTui();
    await shows('restored the draft saved when the TUI last quit');
    const lines = tty.screen().split('\n');
    expect(lines.slice(lines.findIndex((line) => line.startsWith('─'))).join('\n')).toContain('a draft worth keeping');
    tty.keys('C-u');
    // /draft save TEXT keeps TEXT (the command line itself is what the editor held).
    tty.keys('/draft save kept by hand', 'Enter');
    await shows('draft saved to');
    tty.keys('/draft restore', 'Enter');
    await until(() => tty.screen().split('\n').some((line) => line.startsWith('kept by hand')), 'the kept draft back in the editor');
    tty.keys('C-u');
  });

  it('/copy selection copies the picked message through OSC 52 when no clipboard tool is there; Esc cancels', async () => {
    await openTui();
    tty.keys('/copy selection', 'Enter');
    await shows('copy which message? (Esc cancels)');
    tty.keys('Escape');
    await shows('copy cancelled; nothing was copied');
    tty.keys('/copy selection', 'Enter');
    await shows('copy which message?');
    // Typing filters; newest first: the reply to "hello", then "hello" itself.
    tty.keys('hello');
    await shows(/filter: hello · 2 of/);
    tty.keys('Down');
    await shows(/› {2}#\d+ user .*hello/);
    tty.keys('Enter');
    await shows(/copied the message #\d+ through the terminal \(OSC 52/);
    await until(() => tty.tmux('show-buffer') === 'hello', () => `tmux to get the OSC 52 text:\n${history()}`);
  });

  it('Alt+H shows the transcript in full; /export and /share show a review first: user and assistant text by default, full adds the tool calls, a range narrows it; q writes nothing', async () => {
    await openTui();
    // Alt+H: the transcript with every tool call's whole arguments.
    tty.keys('M-h');
    await shows(/transcript \(redacted; reasoning, whole tool arguments and results\)[^]*\[tool call\] update_plan \{[^]*"revision": 1/);
    tty.keys('q');
    await until(() => !tty.screen().includes('transcript (redacted'), 'the transcript to close');
    const plain = path.join(sandbox.root, 'plain.txt');
    tty.keys(`/export ${plain}`, 'Enter');
    const review = await shows(/review before writing .*plain\.txt \(text; \d+ message\(s\), user and assistant text only\)[^]*echo: hello/);
    expect(review).not.toContain('[tool call]');
    tty.keys('q');
    await shows('/export cancelled; nothing was written');
    expect(fs.existsSync(plain)).toBe(false);
    tty.keys(`/export ${plain}`, 'Enter');
    await shows('w writes it');
    tty.keys('w');
    await shows(`exported to ${plain}`);
    const text = fs.readFileSync(plain, 'utf8');
    expect(text).toContain('echo: hello');
    // The person's words stay (they named update_plan); the call itself and its result do not.
    expect(text).not.toContain('[tool call]');
    expect(text).not.toContain('tool result');

    const full = path.join(sandbox.root, 'full.md');
    tty.keys(`/export ${full} full`, 'Enter');
    await shows('with reasoning and tool calls');
    tty.keys('w');
    await shows(`exported to ${full}`);
    expect(fs.readFileSync(full, 'utf8')).toContain('[tool call] update_plan');

    const page = path.join(sandbox.root, 'page.html');
    tty.keys(`/share ${page} 1-2`, 'Enter');
    await shows(/review before writing .*page\.html \(html; 2 message\(s\), user and assistant text only, messages 1-2\)/);
    tty.keys('w');
    await shows(`shared page written to ${page}`);
    const html = fs.readFileSync(page, 'utf8');
    expect(html).toContain('Content-Security-Policy');
    expect(html).toContain('echo: hello');
    expect(html).not.toContain('calls [');
    expect(fs.statSync(page).mode & 0o777).toBe(0o600);
  });

  it('Alt+R opens the session browser: r shows a session made meanwhile, → its tree and ← back', async () => {
    await openTui();
    tty.keys('M-r');
    await shows('sessions, newest first');
    expect(claw('sessions', 'new', '--name', 'made-meanwhile').status).toBe(0);
    expect(tty.screen()).not.toContain('made-meanwhile');
    tty.keys('r');
    await shows(/refreshed · \d+ session\(s\)[^]*made-meanwhile/);
    // The selection stayed on the session it was on (the one with the messages), now below the new one: its tree.
    tty.keys('Right');
    await shows(/tree of session \S+ \(\* its path\)[^]*user: hello/);
    tty.keys('Left');
    await shows('sessions, newest first');
    tty.keys('Escape');
  });
});
