/**
 * The `xdog claw` commands against a real gateway process started by
 * `xdog claw gateway start`, on the scripted faux model
 * (test/fixtures/claw/faux-model.mjs) in private XDG directories.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCli, type CliResult } from '../support/cli.js';
import { startGateway, until, type ClawSandbox } from '../support/claw.js';
import { clawSandboxOn, describeStores } from '../support/stores.js';

let sandbox: ClawSandbox;
const claw = (...args: string[]): CliResult => runCli(['claw', ...args], { env: sandbox.env, cwd: sandbox.root });
const json = (...args: string[]): any => {
  const result = claw(...args, '--json');
  if (result.status !== 0) throw new Error(`xdog claw ${args.join(' ')} exited ${result.status}: ${result.stderr}${result.stdout}`);
  return JSON.parse(result.stdout);
};
const textsOf = (messages: Array<{ role: string; content: unknown }>): string[] =>
  messages.map((message) => `${message.role}:${typeof message.content === 'string' ? message.content : (message.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('')}`);

describeStores('xdog claw', (kind) => {
  beforeAll(async () => {
    sandbox = await clawSandboxOn(kind);
  });

  afterAll(() => {
    // Whatever a failed test left running.
    const pid = fs.existsSync(sandbox.locations.pidFile) ? Number(fs.readFileSync(sandbox.locations.pidFile, 'utf8').trim()) : 0;
    if (pid > 1) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });

  describe('against a gateway started in the background', { timeout: 400_000 }, () => {
    it('runs the daemon, sends, navigates, exports, reports and stops', () => {
      const before = claw('gateway', 'status');
      expect(before.status).toBe(1);
      expect(before.stderr).toContain('xdog claw gateway start');

      // A generous deadline: the test machine may be loaded.
      const started = claw('gateway', 'start', '--timeout', '120');
      expect(started.stderr).toBe('');
      expect(started.status).toBe(0);
      const pid = Number(/pid (\d+)/.exec(started.stdout)![1]);
      expect(started.stdout).toContain(`socket: ${sandbox.locations.socket}`);
      expect(fs.statSync(sandbox.locations.logFile).mode & 0o777).toBe(0o600);
      const twice = claw('gateway', 'start');
      expect(twice.status).toBe(1);
      expect(twice.stderr).toContain(`a gateway already runs (pid ${pid})`);

      // send: the answer on stdout, one line per tool call on stderr
      const hello = claw('send', 'hello');
      expect(hello).toMatchObject({ status: 0, stdout: 'echo: hello\n' });
      const tool = claw('send', 'run echo hi');
      expect(tool.status).toBe(0);
      expect(tool.stdout).toBe('done: hi\n');
      expect(tool.stderr).toBe('[tool] bash {"command":"echo hi"} done: hi\n');
      const piped = runCli(['claw', 'send', '--json', '-'], { env: sandbox.env, cwd: sandbox.root, input: 'from stdin' });
      expect(piped.status).toBe(0);
      const events = piped.stdout.trim().split('\n').map((line) => JSON.parse(line));
      expect(events[0]).toMatchObject({ type: 'receipt', status: 'started', group: 'main' });
      expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'completed' });
      expect(events.map((event) => event.type)).toContain('message_update');

      // sessions: list, name, show with checkpoints
      const list = json('sessions', 'list');
      expect(list.sessions).toHaveLength(1);
      const first = list.sessions[0].id;
      expect(list.activeSessionId).toBe(first);
      expect(json('sessions', 'name', 'first one')).toMatchObject({ id: first, name: 'first one' });
      expect(claw('sessions', 'name').stdout).toBe('first one\n');
      const show = json('sessions', 'show');
      expect(show.session).toMatchObject({ id: first, name: 'first one' });
      expect(show.checkpoints.map((checkpoint: { index: number; role: string; valid: boolean }) => `${checkpoint.index}${checkpoint.role[0]}${checkpoint.valid ? '' : '!'}`)).toEqual([
        '1u',
        '2a',
        '3u',
        '4a!',
        '5t',
        '6a',
        '7u',
        '8a',
      ]);
      // fork 2 then goto 1: the next request carries only the first message and the new one
      const fork = json('sessions', 'fork', '2');
      expect(fork).toMatchObject({ parentSessionId: first, messageCount: 2 });
      expect(fork.id).not.toBe(first);
      expect(json('sessions', 'goto', '1')).toMatchObject({ id: fork.id, messageCount: 1 });
      expect(claw('sessions', 'fork', '4').status).toBe(2);
      const stale = claw('send', '--session', first, 'not sent');
      expect(stale.status).toBe(1);
      expect(stale.stderr).toContain('[STALE]');
      expect(claw('send', 'again')).toMatchObject({ status: 0, stdout: 'echo: again\n' });
      expect(textsOf(sandbox.requests().at(-1)!.messages)).toEqual(['user:hello', 'user:again']);
      const tree = json('sessions', 'tree');
      expect(tree.entries.filter((entry: { parentId: number | null }) => entry.parentId === null)).toHaveLength(1);
      const fresh = json('sessions', 'new', '--name', 'fresh');
      expect(fresh).toMatchObject({ name: 'fresh', messageCount: 0 });
      expect(json('sessions', 'resume', first)).toMatchObject({ id: first });
      expect(json('sessions', 'list').sessions.map((session: { id: string }) => session.id).sort()).toEqual([first, fork.id, fresh.id].sort());
      // an empty search result names the search, not "no sessions yet"
      expect(claw('sessions', 'list', '--search', 'nomatch')).toMatchObject({
        status: 0,
        stdout: 'no sessions match "nomatch" (names and summaries are searched; --archived also lists archived sessions)\n',
      });
      expect(claw('sessions', 'list', '--search', 'nomatch', '--archived').stdout).toBe('no sessions match "nomatch" (names and summaries are searched)\n');

      // export: verified JSONL into a new file, never over an existing one
      const out = path.join(sandbox.root, 'first.jsonl');
      expect(json('sessions', 'export', first, '--output', out)).toMatchObject({ sessionId: first, output: out });
      const lines = fs.readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
      expect(lines[0]).toMatchObject({ type: 'xdog.claw.transcript', session: { id: first } });
      expect(lines.filter((line) => line.kind === 'message')).toHaveLength(8);
      expect(fs.statSync(out).mode & 0o777).toBe(0o600);
      expect(claw('sessions', 'export', first).stdout).toBe(fs.readFileSync(out, 'utf8'));
      const again = claw('sessions', 'export', first, '--output', out);
      expect(again.status).toBe(1);
      expect(again.stderr).toContain('already exists');
      // A relative --output is a file of the group's workspace, wherever the command runs (B6).
      expect(json('sessions', 'export', first, '--output', 'relative.jsonl')).toMatchObject({ output: path.join(sandbox.workspace, 'relative.jsonl') });
      expect(fs.readFileSync(path.join(sandbox.workspace, 'relative.jsonl'), 'utf8')).toBe(fs.readFileSync(out, 'utf8'));
      expect(fs.existsSync(path.join(sandbox.root, 'relative.jsonl'))).toBe(false);

      // status and usage
      const status = json('status');
      expect(status).toMatchObject({ pid, groups: [{ name: 'main', busy: false, activeSessionId: first }] });
      const usage = json('usage');
      expect(usage.reduce((calls: number, row: { calls: number }) => calls + row.calls, 0)).toBe(sandbox.requests().length);
      expect(claw('usage', '--since', 'yesterday').status).toBe(2);

      // stop: SIGTERM to the pid the gateway confirms, then gone
      const stopped = claw('gateway', 'stop');
      expect(stopped).toMatchObject({ status: 0, stdout: `gateway stopped (pid ${pid})\n` });
      expect(claw('gateway', 'status').status).toBe(1);
      const stopAgain = claw('gateway', 'stop');
      expect(stopAgain.status).toBe(1);
      expect(stopAgain.stderr).toContain('no gateway is running');
    });

    it('start reports an early exit with the error the gateway logged, under its own code only', async () => {
      const broken = await clawSandboxOn(kind);
      fs.writeFileSync(broken.configFile, fs.readFileSync(broken.configFile, 'utf8').replace(`workspace: ${broken.workspace}`, 'workspace: /nonexistent-xdog-workspace'));
      const result = runCli(['claw', 'gateway', 'start'], { env: broken.env, cwd: broken.root });
      expect(result.status).not.toBe(0);
      expect(result.stderr).toMatch(/^xdog: the gateway exited with code \d+ before it was ready: .*nonexistent-xdog-workspace.* \[[A-Z_]+\] \(.*the log: .*gateway\.log\)\n$/);
      expect(result.stderr.match(/\[[A-Z_]+\]/g)).toHaveLength(1);
    });

    it('send waits for a queued prompt and streams its own run, not the one before it', async () => {
      const queued = await clawSandboxOn(kind);
      const gateway = await startGateway(queued);
      const release = path.join(queued.root, 'release');
      /** `xdog claw send TEXT` as a background process. */
      const send = (text: string) => {
        const child = spawn(process.execPath, [path.join(repoRoot, 'bin/run.js'), 'claw', 'send', text], { cwd: queued.root, env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', ...queued.env } });
        const output = { stdout: '', stderr: '' };
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
        const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
        return { output, exited };
      };
      try {
        // The first run's tool call waits for a file the test creates, so the second prompt surely queues behind it.
        const first = send(`run while [ ! -e ${release} ]; do sleep 0.1; done; echo released`);
        await until(() => first.output.stderr.length > 0 || fs.existsSync(queued.fauxLog), 'the first run to start', 60_000);
        const second = send('after you');
        await until(() => second.output.stderr.includes('[queued]'), 'the second prompt to be queued', 60_000);
        fs.writeFileSync(release, '');
        expect(await first.exited).toBe(0);
        expect(first.output.stdout).toBe('done: released\n');
        expect(await second.exited).toBe(0);
        expect(second.output.stdout).toBe('echo: after you\n');
        expect(second.output.stderr).toMatch(/^\[queued\] the group main is busy/);
        expect(second.output.stderr).not.toContain('[tool]');
      } finally {
        await gateway.stop();
      }
    });
  });
});
