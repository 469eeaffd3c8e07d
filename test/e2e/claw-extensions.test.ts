/**
 * Extensions in the claw gateway: enabled in the config, activated by a
 * group's first turn, their pre-tool veto applied to the group's runs, their
 * entries committed in the session store, a quarantine that fails tool calls
 * closed, and `xdog claw extensions list|reload` from the CLI.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayConnection } from '../../plugins/claw-gateway/index.js';
import { clawSandbox, connect, startGateway, until, watch, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { repoRoot, runCli } from '../support/cli.js';
import { writeTree } from '../support/temp.js';

const EXTENSION = `
export default function setup(api) {
  let stored = [];
  api.beforeToolCall(({ args }) => {
    if (String(args.command).includes('crash')) throw new Error('the guard crashed');
    if (String(args.command).includes('forbidden')) return { block: true, reason: 'forbidden by the test guard' };
  });
  api.afterToolCall(async ({ args }) => {
    const receipt = await api.appendEntry('ran', { command: args.command });
    stored.push(receipt.id);
    api.status('entries', stored.join(','));
  });
}`;

describe('extensions in the claw gateway', { timeout: 120_000 }, () => {
  let gateway: GatewayProcess | undefined;
  let client: GatewayConnection | undefined;
  afterEach(async () => {
    await client?.close();
    await gateway?.stop();
    client = gateway = undefined;
  });

  it('gates the group tools, stores entries, quarantines, and reloads through the CLI', async () => {
    const sandbox = clawSandbox('extensions: [test-guard]\n');
    const folder = path.join(sandbox.root, 'test-guard');
    writeTree(folder, { 'package.json': { name: 'test-guard', version: '1.0.0', type: 'module', xdog: { extension: './index.js' } }, 'index.js': EXTENSION });
    const installed = runCli(['plugins', 'install', folder], { env: sandbox.env, cwd: sandbox.root });
    expect(installed.status, installed.stderr).toBe(0);
    // Installed extensions are listed with the plugins (discovery reads package.json files only).
    const plugins = runCli(['plugins', 'list'], { env: sandbox.env, cwd: sandbox.root });
    expect(plugins.stdout).toMatch(/^test-guard {2}1\.0\.0 {2}user {2}ready {2}extension$/m);
    expect(JSON.parse(runCli(['plugins', 'list', '--json'], { env: sandbox.env, cwd: sandbox.root }).stdout)).toContainEqual(expect.objectContaining({ name: 'test-guard', kind: 'extension', source: 'user', state: 'ready' }));
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    expect(client.hello.capabilities).toContain('extensions:1');
    const { ends } = await watch(client);
    const lastToolResult = () => JSON.stringify(sandbox.requests().at(-1)!.messages.at(-1));

    expect(await client.callService('extensions.list', {})).toMatchObject([{ id: 'test-guard', state: 'inactive' }]);
    await client.call('prompt', { text: 'run echo allowed', idempotencyKey: 'k1' });
    await until(() => ends.length === 1, 'the first run');
    expect(lastToolResult()).toContain('allowed');
    const [afterFirst] = (await client.callService('extensions.list', {})) as Array<{ state: string; status: Record<string, string> }>;
    expect(afterFirst).toMatchObject({ state: 'active', status: { entries: expect.stringMatching(/^\d+$/) } });

    await client.call('prompt', { text: 'run echo forbidden', idempotencyKey: 'k2' });
    await until(() => ends.length === 2, 'the vetoed run');
    expect(lastToolResult()).toContain('forbidden by the test guard');

    // claw send says why the extension was quarantined, as the chat does.
    const crashed = runCli(['claw', 'send', 'run echo crash'], { env: sandbox.env, cwd: sandbox.root });
    expect(crashed.stderr).toContain('xdog: notice: extension "test-guard" was quarantined: its beforeToolCall failed: the guard crashed');
    await until(() => ends.length === 3, 'the run whose guard crashed');
    expect(lastToolResult()).toContain('fails closed');
    const listed = runCli(['claw', 'extensions', 'list'], { env: sandbox.env });
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/test-guard 1\.0\.0: quarantined \(its beforeToolCall failed: the guard crashed\); tool calls fail closed/);

    await client.call('prompt', { text: 'run echo still-closed', idempotencyKey: 'k4' });
    await until(() => ends.length === 4, 'a run while quarantined');
    expect(lastToolResult()).toContain('is quarantined');
    expect(lastToolResult()).not.toContain('still-closed\\\\n');

    const reloaded = runCli(['claw', 'extensions', 'reload', 'test-guard'], { env: sandbox.env });
    expect(reloaded.status, reloaded.stderr).toBe(0);
    expect(reloaded.stdout).toMatch(/test-guard 1\.0\.0: active/);
    await client.call('prompt', { text: 'run echo works-again', idempotencyKey: 'k5' });
    await until(() => ends.length === 5, 'the run after reload');
    expect(lastToolResult()).toContain('works-again');
    expect(fs.existsSync(sandbox.configFile)).toBe(true);
  });

  /** Scenario 19 and the rest of the extension API through a real gateway. */
  const SCENARIO = `
export default function setup(api) {
  const seen = [];
  for (const event of ['agent_start', 'turn_start', 'turn_end', 'agent_end']) api.on(event, (info) => { seen.push(info.turn ? info.event + ':' + info.turn : info.event); });
  api.tool({ name: 'shout', description: 'shouts', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, execute: ({ text }) => text.toUpperCase() });
  api.beforeToolCall(({ toolName, args }) => (toolName === 'bash' && args.command === 'echo rewrite-me' ? { args: { command: 'cat /etc/hostname' } } : undefined));
  api.command('fill', {
    description: 'appends N entries',
    run: async (n) => {
      const refused = [];
      let stored = 0;
      for (let i = 0; i < Number(n); i++) await api.appendEntry('note', { i }).then(() => stored++, (error) => refused.push(error.message));
      return [stored + ' stored', ...refused].join('\\n');
    },
    complete: (prefix) => ['1', '128', '129'].filter((item) => item.startsWith(prefix)),
  });
  api.command('probe', { run: async () => JSON.stringify({ seen, session: await api.getSessionName(), model: await api.getModel() }) });
}`;

  /** An in-process policy: the group's own gate, which a rewritten argument must still pass. */
  const ETC_GATE = [
    "import { definePlugin } from 'xdog';",
    'export default definePlugin({',
    "  name: 'xdog-plugin-etc-gate',",
    "  hooks: { beforeToolCall: (context) => (String(context.args.command ?? '').includes('/etc') ? { block: true, reason: 'no /etc here' } : undefined) },",
    '});',
  ].join('\n');

  function install(sandbox: ClawSandbox, name: string, files: Record<string, string | object>): void {
    const folder = path.join(sandbox.root, name);
    writeTree(folder, files);
    const installed = runCli(['plugins', 'install', folder], { env: sandbox.env, cwd: sandbox.root });
    expect(installed.status, installed.stderr).toBe(0);
  }

  it('scenario 19: blocks an extension tool until allowed, refuses the 129th entry, denies a rewrite that breaks policy; events, names and commands', async () => {
    const sandbox = clawSandbox('extensions: [test-tools]\n');
    install(sandbox, 'test-tools', { 'package.json': { name: 'test-tools', version: '1.0.0', type: 'module', xdog: { extension: './index.js' } }, 'index.js': SCENARIO });
    install(sandbox, 'etc-gate', { 'package.json': { name: 'xdog-plugin-etc-gate', version: '1.0.0', type: 'module', peerDependencies: { xdog: '*' }, xdog: { entry: './index.js', provides: {} } }, 'index.js': ETC_GATE });
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const { ends } = await watch(client);
    const lastToolResult = () => JSON.stringify(sandbox.requests().at(-1)!.messages.at(-1));

    // Not in extension_allow_tools: the model sees ext_shout, and its call is blocked with the remedy.
    await client.call('prompt', { text: 'callj ext_shout {"text":"hi"}', idempotencyKey: 's1' });
    await until(() => ends.length === 1, 'the blocked extension tool call');
    expect(JSON.stringify(sandbox.requests().at(-1))).toContain('ext_shout');
    expect(lastToolResult()).toContain('extension tool ext_shout is blocked: add it to extension_allow_tools');

    // A pre-hook rewrite that breaks the group's policy is still denied.
    await client.call('prompt', { text: 'run echo rewrite-me', idempotencyKey: 's2' });
    await until(() => ends.length === 2, 'the rewritten call');
    expect(lastToolResult()).toContain('rewrote the arguments, and permission hook \\"xdog-plugin-etc-gate\\" blocked them: no /etc here');

    // getSessionName answers the gateway's session name; the events came in run order.
    const status = (await client.call('group.status', {})) as { activeSessionId: string };
    await client.call('session.name', { name: 'scenario nineteen', expectedSessionId: status.activeSessionId });
    const probe = JSON.parse(((await client.callService('extensions.command', { command: '/ext-test-tools-probe' })) as { text: string }).text);
    const run = ['agent_start', 'turn_start:1', 'turn_end:1', 'turn_start:2', 'turn_end:2', 'agent_end'];
    expect(probe).toMatchObject({ seen: [...run, ...run], session: 'scenario nineteen', model: { id: 'demo', provider: 'faux' } });

    // 128 entries per session: the 129th is refused, and the store holds 128.
    expect(await client.callService('extensions.complete', { command: 'ext-test-tools-fill', prefix: '12' })).toEqual({ items: ['128', '129'] });
    const filled = (await client.callService('extensions.command', { command: 'ext-test-tools-fill', args: '129' })) as { text: string };
    expect(filled.text).toBe('128 stored\nthe session already holds 128 extension entries, the limit');
    await expect(client.callService('extensions.command', { command: 'ext-test-tools-nope' })).rejects.toThrow(/no extension command ext-test-tools-nope/);

    // Allowed in the config (after a restart), the same call runs the extension's tool.
    await client.close();
    await gateway.stop();
    fs.appendFileSync(sandbox.configFile, 'extension_allow_tools: [ext_shout]\n');
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const after = await watch(client);
    await client.call('prompt', { text: 'callj ext_shout {"text":"hi"}', idempotencyKey: 's3' });
    await until(() => after.ends.length === 1, 'the allowed extension tool call');
    expect(lastToolResult()).toContain('HI');
    expect(lastToolResult()).not.toContain('blocked');
  });

  it('runs the example extension: its model for the group (active before ready), its veto, its entries and its command', async () => {
    const sandbox = clawSandbox('extensions: [xdog-extension-guard]\nextension_settings:\n  xdog-extension-guard: { protect: private }\n');
    fs.writeFileSync(sandbox.configFile, fs.readFileSync(sandbox.configFile, 'utf8').replace('model: faux/demo', 'model: ext-xdog-extension-guard-echo/v1').replace('enabled_tools: [bash, read]', 'enabled_tools: [write]'));
    const installed = runCli(['plugins', 'install', path.join(repoRoot, 'docs/examples/xdog-extension-guard')], { env: sandbox.env, cwd: sandbox.root });
    expect(installed.status, installed.stderr).toBe(0);
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    expect(await client.callService('extensions.list', {})).toMatchObject([{ id: 'xdog-extension-guard', state: 'active', providers: ['ext-xdog-extension-guard-echo'] }]);
    const { events, ends } = await watch(client);
    const texts = () => events.filter((event) => event.event.type === 'message_end' && event.event.message.role === 'assistant').map((event) => JSON.stringify(event.event.message.content));

    await client.call('prompt', { text: 'hi there', idempotencyKey: 'g1' });
    await until(() => ends.length === 1, 'the echo turn');
    expect(ends[0]).toMatchObject({ status: 'completed' });
    expect(texts().at(-1)).toContain('echo: hi there');

    await client.call('prompt', { text: 'write private.txt', idempotencyKey: 'g2' });
    await until(() => ends.length === 2, 'the vetoed write');
    expect(texts().at(-1)).toContain('private.txt is protected by xdog-extension-guard');
    expect(fs.existsSync(path.join(sandbox.workspace, 'private.txt'))).toBe(false);

    await client.call('prompt', { text: 'write notes.txt', idempotencyKey: 'g3' });
    await until(() => ends.length === 3, 'the allowed write');
    expect(fs.readFileSync(path.join(sandbox.workspace, 'notes.txt'), 'utf8')).toBe('written by the echo model\n');
    const listed = runCli(['claw', 'extensions', 'list'], { env: sandbox.env });
    expect(listed.stdout).toContain('status guard: 1 write(s) recorded');

    const command = (await client.callService('extensions.command', { command: '/ext-xdog-extension-guard-protected' })) as { text: string };
    expect(command.text).toBe('paths containing "private" are protected; 1 write(s) so far');

    await client.call('prompt', { text: 'fail', idempotencyKey: 'g4' });
    await until(() => ends.length === 4, 'the failing turn');
    expect(ends[3]).toMatchObject({ status: 'error', errorMessage: 'the echo backend refused' });
  });
  it("reads an extension's durable entries back outside the gateway: xdog claw sessions entries [--extension ID]", async () => {
    const notes = (id: string) => `export default (api) => {
  api.command('note', { run: async (text) => (await api.appendEntry('note', { text, by: '${id}' })).id });
  api.command('mine', { run: async () => JSON.stringify(await api.getEntries()) });
};`;
    const sandbox = clawSandbox('extensions: [test-notes, test-other]\n');
    for (const id of ['test-notes', 'test-other']) install(sandbox, id, { 'package.json': { name: id, version: '1.0.0', type: 'module', xdog: { extension: './index.js' } }, 'index.js': notes(id) });
    gateway = await startGateway(sandbox);
    client = await connect(sandbox);
    const { ends } = await watch(client);
    await client.call('prompt', { text: 'hello', idempotencyKey: 'n1' });
    await until(() => ends.length === 1, 'the first run (the session the entries go to)');
    const note = async (id: string, text: string) => ((await client!.callService('extensions.command', { command: `/ext-${id}-note`, args: text })) as { text: string }).text;
    const first = await note('test-notes', 'one');
    const other = await note('test-other', 'elsewhere');
    const second = await note('test-notes', 'two \u001b[31mred');

    const all = runCli(['claw', 'sessions', 'entries', '--json'], { env: sandbox.env });
    expect(all.status, all.stderr).toBe(0);
    const status = (await client.call('group.status', {})) as { activeSessionId: string };
    expect(JSON.parse(all.stdout)).toEqual({
      sessionId: status.activeSessionId,
      entries: [
        { id: first, extension: 'test-notes', kind: 'note', data: { text: 'one', by: 'test-notes' } },
        { id: other, extension: 'test-other', kind: 'note', data: { text: 'elsewhere', by: 'test-other' } },
        { id: second, extension: 'test-notes', kind: 'note', data: { text: 'two \u001b[31mred', by: 'test-notes' } },
      ],
    });
    const mine = runCli(['claw', 'sessions', 'entries', status.activeSessionId, '--extension', 'test-notes'], { env: sandbox.env });
    expect(mine.status, mine.stderr).toBe(0);
    // One line each, the control character made harmless for the terminal.
    expect(mine.stdout.trim().split('\n')).toHaveLength(2);
    expect(mine.stdout).toContain(`#${first}  test-notes  note  {"text":"one","by":"test-notes"}`);
    expect(mine.stdout).not.toContain('\u001b');
    expect(mine.stdout).not.toContain('elsewhere');
    // The extension reads the same entries back, its own only.
    expect(JSON.parse(((await client.callService('extensions.command', { command: '/ext-test-notes-mine' })) as { text: string }).text).map((entry: { id: string }) => entry.id)).toEqual([first, second]);
    const none = runCli(['claw', 'sessions', 'entries', '-e', 'test-absent'], { env: sandbox.env });
    expect(none.stdout).toBe(`no extension entries of test-absent on the path of session ${status.activeSessionId}\n`);
  });
});
