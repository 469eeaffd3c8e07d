/**
 * Compaction through a real gateway process and the built CLI, on the
 * scripted faux model (test/fixtures/claw/faux-model.mjs answers summary
 * requests): the request after a compaction starts with the summary, the
 * recovery branch restores the full history (sessions tree / branch / goto),
 * a failed summary changes nothing, a tiny history costs no model call, and a
 * compacted session survives a gateway restart.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clawCommands, repoRoot, runCli } from '../support/cli.js';
import { connect, startGateway, until, type ClawSandbox, type GatewayProcess } from '../support/claw.js';
import { clawSandboxOn, describeStores } from '../support/stores.js';

let sandbox: ClawSandbox;
let gateway: GatewayProcess;

const { claw, json } = clawCommands(() => sandbox);
const send = (text: string): void => {
  const result = claw('send', text);
  if (result.status !== 0) throw new Error(`send ${text} failed: ${result.stderr}`);
};
const textOf = (message: { role: string; content: unknown }): string =>
  typeof message.content === 'string' ? message.content : (message.content as Array<{ text?: string }>).map((part) => part.text ?? '').join('');
/** The texts of the latest model request, as role:text. */
const lastRequest = (): string[] => sandbox.requests().at(-1)!.messages.map((message) => `${message.role}:${textOf(message)}`);

describeStores('claw compaction', (kind) => {
  beforeAll(async () => {
    // Keep almost nothing verbatim, so three short turns are enough to compact.
    sandbox = await clawSandboxOn(kind, '      compaction:\n        keep_recent_tokens: 5\n');
    gateway = await startGateway(sandbox, 120_000);
  }, 180_000);

  afterAll(async () => {
    await gateway?.stop();
  });

  describe('compaction on request', { timeout: 300_000 }, () => {
    it('compacts, starts the next request with the summary, and restores the full history from the recovery branch', async () => {
      for (const text of ['one', 'two', 'three']) send(text);
      const receipt = json('compact', '--focus', 'keep the numbers');
      expect(receipt).toMatchObject({
        status: 'compacted',
        recoveryLabel: 'Before compaction #1',
        summary: 'SUMMARY of 2 user messages: one | two [focus: keep the numbers]',
        messagesBefore: 6,
        messagesAfter: 3,
      });

      send('four');
      expect(lastRequest()).toEqual([
        'user:Summary of the earlier part of this conversation (compacted):\n\nSUMMARY of 2 user messages: one | two [focus: keep the numbers]',
        'user:three',
        'assistant:echo: three',
        'user:four',
      ]);

      // The tree shows the recovery branch beside the compaction.
      const entries: Array<{ id: number; kind: string; payload: any; onPath: boolean }> = json('sessions', 'tree').entries;
      const label = entries.find((entry) => entry.kind === 'label');
      expect(label).toMatchObject({ id: receipt.recoveryBranchId, payload: { label: 'Before compaction #1' }, onPath: false });
      expect(entries.find((entry) => entry.kind === 'compaction')).toMatchObject({ id: receipt.compactionEntryId, payload: { recoveryEntryId: receipt.recoveryBranchId }, onPath: true });
      expect(claw('sessions', 'tree').stdout).toContain('Before compaction #1');

      // goto a checkpoint before the compaction: the full history again.
      json('sessions', 'goto', '6');
      send('five');
      expect(lastRequest()).toEqual(['user:one', 'assistant:echo: one', 'user:two', 'assistant:echo: two', 'user:three', 'assistant:echo: three', 'user:five']);

      // branch to the recovery branch: the complete original path.
      json('sessions', 'branch', String(receipt.recoveryBranchId));
      send('six');
      expect(lastRequest()).toEqual(['user:one', 'assistant:echo: one', 'user:two', 'assistant:echo: two', 'user:three', 'assistant:echo: three', 'user:six']);
    });

    it('updates the previous summary at the second compaction, and keeps it across a gateway restart', async () => {
      json('sessions', 'new');
      for (const text of ['alpha', 'beta', 'gamma']) send(text);
      expect(json('compact')).toMatchObject({ status: 'compacted', recoveryLabel: 'Before compaction #1' });
      for (const text of ['delta', 'epsilon']) send(text);
      const second = json('compact');
      expect(second).toMatchObject({ status: 'compacted', recoveryLabel: 'Before compaction #2' });
      expect(second.summary).toContain('(updating: SUMMARY of 2 user messages: alpha | beta)');

      await gateway.stop();
      gateway = await startGateway(sandbox, 120_000);
      send('zeta');
      const request = lastRequest();
      expect(request[0]).toContain(second.summary);
      expect(request.at(-1)).toBe('user:zeta');
      expect(request.some((text) => text.includes('alpha') && !text.startsWith('user:Summary'))).toBe(false);
    });

    it('leaves the history unchanged when the summary is empty, and makes no model call for a tiny history', () => {
      json('sessions', 'new');
      for (const text of ['EMPTY-SUMMARY please', 'b', 'c']) send(text);
      const before = sandbox.requests().length;
      const failed = claw('compact');
      expect(failed.status).toBe(1);
      expect(failed.stderr).toContain('the model returned an empty summary');
      expect(sandbox.requests().length).toBe(before + 1);
      send('d');
      expect(lastRequest()[0]).toBe('user:EMPTY-SUMMARY please');
      expect(JSON.stringify(json('sessions', 'tree'))).not.toContain('Before compaction');

      json('sessions', 'new');
      send('solo');
      const calls = sandbox.requests().length;
      const tiny = claw('compact');
      expect(tiny).toMatchObject({ status: 0 });
      expect(tiny.stdout).toContain('nothing compacted: the history is too small to compact');
      expect(sandbox.requests().length).toBe(calls);
    });
  });

  describe('cancelling a claw compaction', { timeout: 300_000 }, () => {
    it('abort stops a running compaction; nothing is written', async () => {
      json('sessions', 'new');
      for (const text of ['SLOW-SUMMARY x', 'b', 'c']) send(text);
      const client = await connect(sandbox);
      try {
        const { activeSessionId } = await client.call('group.status', {});
        const before = sandbox.requests().length;
        const compaction = client.call('session.compact', { expectedSessionId: activeSessionId }, { timeoutMs: 200_000 }).then(
          () => undefined,
          (error: { code?: string }) => error,
        );
        await until(() => sandbox.requests().length > before, 'the summary request');
        expect(await client.call('abort', {})).toEqual({ aborted: true });
        expect(await compaction).toMatchObject({ code: 'ABORTED' });
        expect((await client.call('group.status', {})).busy).toBe(false);
      } finally {
        await client.close();
      }
      expect(JSON.stringify(json('sessions', 'tree'))).not.toContain('Before compaction');
      send('d');
      expect(lastRequest()[0]).toBe('user:SLOW-SUMMARY x');

      // compact.cancel (here through `compact --cancel`, another client) stops only a compaction.
      expect(json('compact', '--cancel')).toEqual({ cancelled: false });
      const other = await connect(sandbox);
      try {
        const { activeSessionId } = await other.call('group.status', {});
        const requests = sandbox.requests().length;
        const compaction = other.call('session.compact', { expectedSessionId: activeSessionId }, { timeoutMs: 200_000 }).then(
          () => undefined,
          (error: { code?: string }) => error,
        );
        await until(() => sandbox.requests().length > requests, 'the summary request');
        expect(json('compact', '--cancel')).toEqual({ cancelled: true });
        expect(await compaction).toMatchObject({ code: 'ABORTED' });
      } finally {
        await other.close();
      }
      expect(JSON.stringify(json('sessions', 'tree'))).not.toContain('Before compaction');

      // Ctrl+C on the command does the same.
      const before = sandbox.requests().length;
      const child = spawn(process.execPath, [path.join(repoRoot, 'bin/run.js'), 'claw', 'compact'], {
        cwd: sandbox.root,
        env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', ...sandbox.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.stdout.resume();
      const exited = once(child, 'exit');
      await until(() => sandbox.requests().length > before, 'the summary request of the command');
      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).toBe(1);
      expect(stderr).toContain('the compaction was cancelled [ABORTED]');
      expect(JSON.stringify(json('sessions', 'tree'))).not.toContain('Before compaction');
    });
  });

  describe('automatic claw compaction', { timeout: 300_000 }, () => {
    it('compacts before a turn once the context passes the window minus the reserve', async () => {
      const auto = await clawSandboxOn(kind, '      compaction:\n        context_window: 100\n        reserve_tokens: 20\n        keep_recent_tokens: 5\n');
      const process = await startGateway(auto, 120_000);
      try {
        const say = (text: string): void => {
          const result = runCli(['claw', 'send', text], { env: auto.env, cwd: auto.root });
          if (result.status !== 0) throw new Error(`send ${text} failed: ${result.stderr}`);
        };
        say('alpha');
        say('long 100');
        expect(auto.requests().every((request) => !JSON.stringify(request).includes('<conversation>'))).toBe(true);
        say('beta');
        const requests = auto.requests();
        const last = requests.at(-1)!.messages;
        expect(textOf(last[0]!)).toContain('Summary of the earlier part of this conversation (compacted)');
        expect(textOf(last.at(-1)!)).toBe('beta');
        expect(requests.some((request) => textOf(request.messages[0]!).startsWith('<conversation>\n[user]\nalpha'))).toBe(true);
        // The gateway's log arrives on a pipe this process reads between awaits.
        await until(() => process.log().includes('compacted automatically'), 'the automatic compaction in the gateway log');
        const tree = runCli(['claw', 'sessions', 'tree'], { env: auto.env, cwd: auto.root });
        expect(tree.stdout).toContain('Before compaction #1');
      } finally {
        await process.stop();
      }
    });
  });
});
