/** `xdog agent acp` driven by the ACP SDK's own client over stdio, with the faux model. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';
import { tempDir, writeTree } from '../support/temp.js';

describe('xdog agent acp', { timeout: 120_000 }, () => {
  it('initialize → new session → prompt with a permitted, then a denied tool call → load → cancel', async () => {
    const root = tempDir('xdog-e2e-acp-');
    const work = path.join(root, 'work');
    writeTree(root, {
      'work/.keep': '',
      'script.json': {
        responses: [
          { toolCalls: [{ name: 'bash', arguments: { command: 'echo hi' } }] },
          { text: 'first done' },
          { toolCalls: [{ name: 'bash', arguments: { command: 'echo forbidden > out.txt' } }] },
          { text: 'second done' },
          { delayMs: 60_000, text: 'never' },
        ],
      },
    });
    const log = path.join(root, 'requests.jsonl');
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/run.js'), 'agent', 'acp', '--model', 'faux/demo'], {
      cwd: work,
      env: { ...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: '1', XDG_CONFIG_HOME: path.join(root, 'c'), XDG_DATA_HOME: path.join(root, 'd'), XDOG_FAUX_SCRIPT: path.join(root, 'script.json'), XDOG_FAUX_LOG: log },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));

    const permissionAnswers = ['allow', 'reject'];
    const asked: string[] = [];
    const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
    const client = acp.client({ name: 'xdog-test' }).onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      asked.push(params.toolCall.title ?? '');
      return { outcome: { outcome: 'selected', optionId: permissionAnswers.shift() ?? 'reject' } };
    });

    await client.connectWith(stream, async (ctx) => {
      const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      expect(init.protocolVersion).toBe(acp.PROTOCOL_VERSION);
      expect(init.agentInfo?.name).toBe('xdog');
      expect(init.agentCapabilities?.loadSession).toBe(true);

      await ctx.buildSession(work).withSession(async (session) => {
        const readTurn = async () => {
          const updates: acp.SessionUpdate[] = [];
          for (;;) {
            const message = await session.nextUpdate();
            if (message.kind === 'stop') return { updates, stopReason: message.stopReason };
            updates.push(message.update);
          }
        };

        // A permitted tool call runs, and its output streams back as a tool_call_update.
        void session.prompt('run echo hi');
        const first = await readTurn();
        expect(first.stopReason).toBe('end_turn');
        expect(first.updates.map((update) => update.sessionUpdate)).toEqual(['tool_call', 'tool_call_update', 'agent_message_chunk', 'agent_message_chunk']);
        expect(first.updates[0]).toMatchObject({ title: 'bash: echo hi', kind: 'execute', status: 'pending', rawInput: { command: 'echo hi' } });
        expect(first.updates[1]).toMatchObject({ status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'hi\n' } }] });

        // A denied tool call never runs; the model is told why.
        void session.prompt('now write the file');
        const second = await readTurn();
        expect(second.stopReason).toBe('end_turn');
        expect(second.updates.find((update) => update.sessionUpdate === 'tool_call_update')).toMatchObject({ status: 'failed' });
        expect(fs.existsSync(path.join(work, 'out.txt'))).toBe(false);
        expect(asked).toEqual(['bash: echo hi', 'bash: echo forbidden > out.txt']);
        const requests = fs.readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
        expect(JSON.stringify(requests[3].messages.at(-1))).toContain('the user denied permission for this tool call');

        // load replays the history of a session this process holds.
        const replayed: string[] = [];
        await ctx.request(acp.methods.agent.session.load, { sessionId: session.sessionId, cwd: work, mcpServers: [] });
        // The replay's notifications precede the load response, so all of them are queued now.
        for (let i = 0; i < 8; i++) {
          const message = await session.nextUpdate();
          if (message.kind === 'session_update') replayed.push(message.update.sessionUpdate);
        }
        expect(replayed).toEqual([
          'user_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk',
          'user_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk',
        ]);

        // cancel stops a slow turn with stopReason "cancelled".
        const third = session.prompt('take your time');
        // Cancel once the model request is under way (the faux log has its fifth request).
        for (let i = 0; i < 2000 && fs.readFileSync(log, 'utf8').trim().split('\n').length < 5; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(fs.readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(5);
        await ctx.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
        expect((await third).stopReason).toBe('cancelled');
      });
    });
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
  });
});
