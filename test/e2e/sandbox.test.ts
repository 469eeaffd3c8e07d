/**
 * The OS sandbox through the built CLI with a scripted model (docs/sandbox.md):
 * every escape attempt is refused, and the workspace and the rest of the file
 * system are checked afterwards. Real bubblewrap, a real MCP server
 * (server-filesystem), a real extension worker, a loopback HTTP server.
 * The roots live under /var/tmp: the sandbox gives /tmp a private tmpfs, and
 * "outside" must be a place the sandbox can see (read-only).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { repoRoot, runCli, runCliAsync, type CliResult } from '../support/cli.js';

const FILESYSTEM_SERVER = path.join(repoRoot, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

interface ToolResultMessage {
  role: string;
  toolName?: string;
  content: Array<{ type: string; text?: string }>;
  isError?: boolean;
}

interface Chat {
  root: string;
  cwd: string;
  outside: string;
  env: NodeJS.ProcessEnv;
  results(): ToolResultMessage[];
}

/** A root under /var/tmp with work/ (the workspace) and outside/target.txt, a faux script and a config. */
function setup(responses: unknown[], config: Record<string, unknown> = {}): Chat {
  const root = fs.mkdtempSync('/var/tmp/xdog-sandbox-e2e-');
  roots.push(root);
  const cwd = path.join(root, 'work');
  const outside = path.join(root, 'outside');
  fs.mkdirSync(cwd);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'target.txt'), 'original\n');
  fs.writeFileSync(path.join(cwd, 'inside.txt'), 'inside\n');
  fs.writeFileSync(path.join(root, 'script.json'), JSON.stringify({ responses }));
  fs.mkdirSync(path.join(root, 'config', 'xdog'), { recursive: true });
  fs.writeFileSync(path.join(root, 'config', 'xdog', 'config.yaml'), stringify(config));
  const log = path.join(root, 'requests.jsonl');
  const env = { XDG_CONFIG_HOME: path.join(root, 'config'), XDG_DATA_HOME: path.join(root, 'data'), XDG_CACHE_HOME: path.join(root, 'cache'), XDOG_FAUX_SCRIPT: path.join(root, 'script.json'), XDOG_FAUX_LOG: log };
  return {
    root,
    cwd,
    outside,
    env,
    results: () => {
      const requests = fs.readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { messages: ToolResultMessage[] });
      return requests.at(-1)!.messages.filter((message) => message.role === 'toolResult');
    },
  };
}

const text = (message: ToolResultMessage) => message.content.map((part) => part.text ?? '').join('');
const bash = (command: string) => ({ name: 'bash', arguments: { command } });
/**
 * Attempts that would do harm if they ever ran bare (as root: write /etc, mount, a fork bomb) first check
 * that they run inside bubblewrap (its init is PID 1 of the sandbox), so a broken sandbox fails the test safely.
 */
const guarded = (command: string) => bash(`test "$(cat /proc/1/comm)" = bwrap || { echo "not in the sandbox: refusing to try"; exit 99; }; ${command}`);

/** Everything under `dir`, as relative path → content (or "->target" for links). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dir, entry);
    const stat = fs.lstatSync(file);
    out[entry] = stat.isSymbolicLink() ? `->${fs.readlinkSync(file)}` : stat.isFile() ? fs.readFileSync(file, 'utf8') : '<dir>';
  }
  return out;
}

function expectOk(result: CliResult): void {
  expect(result.stderr).not.toMatch(/\[(UNAVAILABLE|INTERNAL)\]/);
  expect(result.status).toBe(0);
}

describe('the sandbox through xdog agent chat (real bwrap)', { timeout: 240_000 }, () => {
  it('refuses every escape from workspace-write, by the file tools and by bash, and leaves everything outside as it was', () => {
    const etcBefore = fs.readdirSync('/etc').sort();
    const chat = setup([]);
    const { cwd, outside, root } = chat;
    // A setuid-root copy of tee, planted before the run, as a user might have left one.
    fs.copyFileSync(execFileSync('bash', ['-c', 'command -v tee'], { encoding: 'utf8' }).trim(), path.join(cwd, 'suidtee'));
    fs.chmodSync(path.join(cwd, 'suidtee'), 0o4755);
    const script = [
      // Turn 1 plants a symlink to outside/ from inside the sandbox (allowed: it is a link in the workspace).
      { toolCalls: [bash(`ln -s ${outside} link && echo planted`)] },
      {
        toolCalls: [
          { name: 'write', arguments: { path: '../outside/escape-dotdot.txt', content: 'x' } },
          { name: 'write', arguments: { path: path.join(outside, 'escape-absolute.txt'), content: 'x' } },
          { name: 'write', arguments: { path: 'link/escape-symlink.txt', content: 'x' } },
          { name: 'write', arguments: { path: `/proc/self/root${outside}/escape-proc.txt`, content: 'x' } },
          { name: 'edit', arguments: { path: 'link/target.txt', old_text: 'original', new_text: 'pwned' } },
          { name: 'write', arguments: { path: 'ok.txt', content: 'inside is fine\n' } },
          bash('echo x > ../outside/escape-bash-dotdot.txt'),
          bash('echo x > link/escape-bash-symlink.txt'),
          bash(`echo x > /proc/self/root${outside}/escape-bash-proc.txt`),
          bash(`ln ${outside}/target.txt hard`),
          bash(`ln -sf ${outside}/target.txt sym && echo pwned >> sym`),
          bash(`mv ${outside}/target.txt ./stolen.txt`),
          bash(`mv inside.txt ${outside}/`),
          guarded(`echo x | ./suidtee ${outside}/escape-suid.txt /etc/xdog-escape; grep -E '^(CapEff|NoNewPrivs)' /proc/self/status`),
          guarded(`perl -e 'syscall(101, 16, getppid(), 0, 0) == -1 or die "attached\\n"; print "ptrace: $!\\n"'`),
          guarded(`mkdir -p mnt && mount -t tmpfs none mnt`),
          guarded('unshare -U true'),
          guarded(`echo x > /etc/xdog-escape`),
          guarded(`perl -e '$n = 0; while (1) { $p = fork(); if (!defined $p) { print "fork refused after $n\\n"; exit 0 } if ($p == 0) { sleep 30; exit 0 } $n++ }'`),
        ],
      },
      { text: 'done' },
    ];
    fs.writeFileSync(path.join(root, 'script.json'), JSON.stringify({ responses: script }));
    const result = runCli(['agent', 'chat', 'faux/demo', 'go', '--cwd', cwd, '--sandbox', 'workspace-write'], { env: chat.env, cwd });
    expectOk(result);
    const [planted, ...results] = chat.results();
    expect(planted!.isError).toBe(false);
    const by = results.map((message) => ({ tool: message.toolName, isError: message.isError, text: text(message) }));
    // The file tools: each refused by real path, naming the rule.
    for (const index of [0, 1, 2, 3, 4]) {
      expect(by[index]).toMatchObject({ isError: true, text: expect.stringMatching(/sandbox \(workspace-write\): .* is outside the writable roots/) });
    }
    expect(by[5]).toMatchObject({ isError: false });
    // bash: read-only file system outside the workspace, cross-device links, no privileges, no syscalls.
    for (const index of [6, 7, 8]) expect(by[index]).toMatchObject({ isError: true, text: expect.stringMatching(/Read-only file system/) });
    expect(by[9]).toMatchObject({ isError: true, text: expect.stringMatching(/Invalid cross-device link|Read-only file system/) });
    expect(by[10]).toMatchObject({ isError: true, text: expect.stringMatching(/Read-only file system/) });
    expect(by[11]).toMatchObject({ isError: true, text: expect.stringMatching(/Read-only file system|cannot move|cannot remove/) });
    expect(by[12]).toMatchObject({ isError: true, text: expect.stringMatching(/Read-only file system|cannot move/) });
    expect(by[13]!.text).toMatch(/Read-only file system/);
    expect(by[13]!.text).toMatch(/CapEff:\s+0000000000000000/);
    expect(by[13]!.text).toMatch(/NoNewPrivs:\s+1/);
    expect(by[14]).toMatchObject({ isError: false, text: expect.stringContaining('ptrace: Operation not permitted') });
    expect(by[15]).toMatchObject({ isError: true, text: expect.stringMatching(/permission denied|not permitted/i) });
    expect(by[16]).toMatchObject({ isError: true, text: expect.stringMatching(/Operation not permitted/) });
    expect(by[17]).toMatchObject({ isError: true, text: expect.stringMatching(/Read-only file system/) });
    const forks = /fork refused after (\d+)/.exec(by[18]!.text);
    expect(forks, by[18]!.text).not.toBeNull();
    expect(Number(forks![1])).toBeLessThan(256);

    // Afterwards: outside/ holds exactly what it held, /etc gained nothing, the workspace only what the calls were allowed to make.
    expect(snapshot(outside)).toEqual({ 'target.txt': 'original\n' });
    expect(fs.readdirSync('/etc').sort()).toEqual(etcBefore);
    expect(fs.readdirSync(root).filter((name) => name !== 'cache').sort()).toEqual(['config', 'outside', 'requests.jsonl', 'script.json', 'work']);
    const inside = snapshot(cwd);
    expect(inside['inside.txt']).toBe('inside\n');
    expect(inside['ok.txt']).toBe('inside is fine\n');
    expect(inside.link).toBe(`->${outside}`);
    // mv across the mount copies (a read) and then cannot unlink the original: a copy, while outside/ kept its file.
    expect(inside['stolen.txt']).toBe('original\n');
    const made = Object.keys(inside).filter((name) => !name.startsWith('link/') && !['inside.txt', 'ok.txt', 'link', 'suidtee', 'mnt', 'sym', 'stolen.txt'].includes(name));
    expect(made).toEqual([]);
  });

  it('read-only lets reads through and refuses every write', () => {
    const chat = setup([
      {
        toolCalls: [
          { name: 'read', arguments: { path: 'inside.txt' } },
          { name: 'ls', arguments: {} },
          bash('cat inside.txt && ls /etc >/dev/null && echo read-ok'),
          { name: 'write', arguments: { path: 'new.txt', content: 'x' } },
          { name: 'edit', arguments: { path: 'inside.txt', old_text: 'inside', new_text: 'changed' } },
          bash('echo x > new.txt'),
          bash('echo changed > inside.txt'),
          bash('rm inside.txt'),
          bash('mkdir sub'),
          bash('echo x > /tmp/scratch && cat /tmp/scratch'),
        ],
      },
      { text: 'done' },
    ]);
    const result = runCli(['agent', 'chat', 'faux/demo', 'go', '--cwd', chat.cwd, '--sandbox', 'read-only'], { env: chat.env, cwd: chat.cwd });
    expectOk(result);
    const by = chat.results().map((message) => ({ isError: message.isError, text: text(message) }));
    expect(by[0]).toMatchObject({ isError: false, text: expect.stringContaining('inside') });
    expect(by[1]).toMatchObject({ isError: false, text: expect.stringContaining('inside.txt') });
    expect(by[2]).toMatchObject({ isError: false, text: expect.stringContaining('read-ok') });
    for (const index of [3, 4]) expect(by[index]).toMatchObject({ isError: true, text: expect.stringContaining('sandbox (read-only)') });
    for (const index of [5, 6, 7, 8]) expect(by[index]).toMatchObject({ isError: true, text: expect.stringMatching(/Read-only file system/) });
    // Only the private /tmp is writable, and it is gone with the call.
    expect(by[9]).toMatchObject({ isError: false, text: expect.stringContaining('x') });
    expect(snapshot(chat.cwd)).toEqual({ 'inside.txt': 'inside\n' });
    expect(fs.existsSync('/tmp/scratch')).toBe(false);
  });

  describe('network', () => {
    let server: http.Server;
    let port: number;
    beforeAll(async () => {
      server = http.createServer((request, response) => response.end(`hello from the host (${request.headers.host})\n`));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('network off: a connection to a loopback server of the host fails', async () => {
      const chat = setup([{ toolCalls: [bash(`curl -sS --max-time 10 http://127.0.0.1:${port}/`)] }, { text: 'done' }], { sandbox: { mode: 'workspace-write', network: 'off' } });
      const result = await runCliAsync(['agent', 'chat', 'faux/demo', 'go', '--cwd', chat.cwd], { env: chat.env, cwd: chat.cwd });
      expectOk(result);
      const [call] = chat.results();
      expect(call!.isError).toBe(true);
      expect(text(call!)).toMatch(/Failed to connect|Couldn't connect|Connection refused/);
      expect(text(call!)).not.toContain('hello from the host');
    });

    it('network allow: the listed host goes through the proxy, another host and a direct connection are refused', async () => {
      const chat = setup(
        [
          {
            toolCalls: [
              bash(`curl -sS --max-time 10 http://localhost:${port}/listed`),
              bash(`curl -sS --max-time 10 -p http://localhost:${port}/tunnel`),
              bash(`curl -sS --max-time 10 -f http://127.0.0.1:${port}/other`),
              bash(`curl -sS --max-time 10 -p http://127.0.0.1:${port}/other-tunnel`),
              bash(`curl -sS --max-time 10 --noproxy '*' http://localhost:${port}/direct`),
            ],
          },
          { text: 'done' },
        ],
        { sandbox: { mode: 'workspace-write', network: { allow: ['localhost'] } } },
      );
      const result = await runCliAsync(['agent', 'chat', 'faux/demo', 'go', '--cwd', chat.cwd], { env: chat.env, cwd: chat.cwd });
      expectOk(result);
      const by = chat.results().map((message) => ({ isError: message.isError, text: text(message) }));
      expect(by[0]).toMatchObject({ isError: false, text: expect.stringContaining('hello from the host') });
      expect(by[1]).toMatchObject({ isError: false, text: expect.stringContaining('hello from the host') });
      expect(by[2]).toMatchObject({ isError: true, text: expect.stringMatching(/403/) });
      expect(by[3]).toMatchObject({ isError: true, text: expect.stringMatching(/403|CONNECT tunnel failed/) });
      expect(by[4]).toMatchObject({ isError: true });
      expect(by[4]!.text).not.toContain('hello from the host');
    });
  });

  it('an MCP stdio server in the sandbox cannot write outside the workspace', () => {
    const chat = setup([], {});
    const config = {
      sandbox: { mode: 'workspace-write', network: 'off' },
      mcp_servers: { files: { command: process.execPath, args: [FILESYSTEM_SERVER, chat.root], allow_tools: true, timeout: 60 } },
    };
    fs.writeFileSync(path.join(chat.root, 'config', 'xdog', 'config.yaml'), stringify(config));
    const script = {
      responses: [
        {
          toolCalls: [
            { name: 'files__write_file', arguments: { path: path.join(chat.outside, 'escape-mcp.txt'), content: 'x' } },
            { name: 'files__write_file', arguments: { path: path.join(chat.cwd, 'mcp-inside.txt'), content: 'fine' } },
          ],
        },
        { text: 'done' },
      ],
    };
    fs.writeFileSync(path.join(chat.root, 'script.json'), JSON.stringify(script));
    const result = runCli(['agent', 'chat', 'faux/demo', 'go', '--cwd', chat.cwd, '--no-tools', '--mcp', 'files'], { env: chat.env, cwd: chat.cwd });
    expectOk(result);
    const [outside, inside] = chat.results();
    expect(outside!.isError).toBe(true);
    expect(text(outside!)).toMatch(/EROFS|read-only file system/i);
    expect(inside!.isError).toBeFalsy();
    expect(snapshot(chat.outside)).toEqual({ 'target.txt': 'original\n' });
    expect(fs.readFileSync(path.join(chat.cwd, 'mcp-inside.txt'), 'utf8')).toBe('fine');
  });

  it('an extension worker in the sandbox cannot write outside the workspace', () => {
    const chat = setup([{ text: 'done' }]);
    const install = runCli(['plugins', 'install', path.join(repoRoot, 'test/fixtures/sandbox-probe-ext')], { env: chat.env, cwd: chat.cwd });
    expect(install.stderr).toBe('');
    expect(install.status).toBe(0);
    const report = path.join(chat.cwd, 'report.txt');
    const config = {
      extensions: ['xdog-sandbox-probe'],
      extension_settings: { 'xdog-sandbox-probe': { outside: path.join(chat.outside, 'escape-ext.txt'), report } },
      extension_sandbox: { 'xdog-sandbox-probe': { mode: 'workspace-write' } },
    };
    fs.writeFileSync(path.join(chat.root, 'config', 'xdog', 'config.yaml'), stringify(config));
    const result = runCli(['agent', 'chat', 'faux/demo', 'go', '--cwd', chat.cwd], { env: chat.env, cwd: chat.cwd });
    expectOk(result);
    expect(fs.readFileSync(report, 'utf8')).toBe('refused: EROFS\n');
    expect(snapshot(chat.outside)).toEqual({ 'target.txt': 'original\n' });
  });

  it('fails closed: with bwrap not on PATH the sandboxed call is refused with the install hint, and nothing runs', () => {
    const chat = setup([{ toolCalls: [bash('echo ran > ran.txt')] }, { text: 'done' }]);
    const emptyPath = path.join(chat.root, 'empty-path');
    fs.mkdirSync(emptyPath);
    const result = runCli(['agent', 'chat', 'faux/demo', 'go', '--cwd', chat.cwd, '--sandbox', 'workspace-write'], { env: { ...chat.env, PATH: emptyPath }, cwd: chat.cwd });
    expect(result.status).toBe(0);
    const [call] = chat.results();
    expect(call!.isError).toBe(true);
    expect(text(call!)).toMatch(/refusing to start the bash command: sandbox mode workspace-write cannot be enforced/);
    expect(text(call!)).toContain('apt-get install bubblewrap');
    expect(fs.existsSync(path.join(chat.cwd, 'ran.txt'))).toBe(false);

    const check = runCli(['sandbox', 'check'], { env: { PATH: emptyPath } });
    expect(check.status).toBe(1);
    expect(check.stdout).toContain('bubblewrap: not on PATH');
    expect(check.stderr).toContain('apt-get install bubblewrap');
  });
});
