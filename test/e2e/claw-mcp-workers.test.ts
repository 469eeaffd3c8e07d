/**
 * MCP servers of claw groups in a pool of gateway workers on PostgreSQL: a
 * connection belongs to the worker that owns the group. When a group moves
 * to another worker its server is ended (process group reaped) on the old
 * one; a connect sent to any worker is handed to the new owner, which starts
 * the server in the group's workspace, and the group's agent calls it there.
 * A client at a worker that does not own the group gets the server's
 * elicitation (relayed from the owner) and its answer reaches the server;
 * sampling runs on the owner and is one usage-ledger row.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkersReport } from '../../plugins/claw-gateway/index.js';
import type { GroupMcpServer } from '../../plugins/claw-mcp/index.js';
import { EVERYTHING } from '../plugins/mcp/support.js';
import { type ClawWorker, collect, groupsOf, startWorker, until } from '../support/claw.js';
import { descendants, groupAlive } from '../support/process-tree.js';
import { clawSandboxOn, storeKinds } from '../support/stores.js';
import { tempDir } from '../support/temp.js';

const servers = (worker: ClawWorker) => descendants(worker.process.child.pid!).filter((process) => process.args.includes(EVERYTHING) && process.pid === process.pgid);


describe.runIf(storeKinds().includes('postgres'))('MCP servers of groups moving between workers [postgres]', () => {
  it('ends the server on the old owner, connects on the new one through any worker, and its agent calls it', async () => {
    const root = tempDir('xdog-mcp-workers-');
    const g2 = path.join(root, 'ws-g2');
    fs.mkdirSync(g2);
    const sandbox = await clawSandboxOn(
      'postgres',
      [
        '      mcp_servers: [everything]',
        '    g2:',
        `      workspace: ${g2}`,
        '      model: faux/demo',
        '      enabled_tools: [read]',
        '      mcp_servers: [everything]',
        '  lease_seconds: 10',
        'mcp_servers:',
        '  everything:',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(EVERYTHING)}, stdio]`,
        '    allow_tools: true',
        '    timeout: 30',
        '',
      ].join('\n'),
    );
    const workspaces: Record<string, string> = { main: fs.realpathSync(sandbox.workspace), g2: fs.realpathSync(g2) };
    const workers: ClawWorker[] = [];
    try {
      const w1 = await startWorker(sandbox, 'w1');
      workers.push(w1);
      await until(async () => groupsOf(await w1.client.call('workers.list', {}), 'w1').length === 2, 'w1 to take both groups', 30_000);
      expect(servers(w1)).toEqual([]);
      for (const group of ['main', 'g2']) {
        const status = (await w1.client.callService('mcp.connect', { group, server: 'everything', expectedSessionId: null })) as GroupMcpServer;
        expect(status, `${JSON.stringify(status)}\n${w1.process.log()}`).toMatchObject({ state: "connected" });
      }
      expect(servers(w1).map((process) => process.cwd).sort()).toEqual(Object.values(workspaces).sort());

      // A second worker takes one group: its server ends on w1 (the process group reaped), the other stays.
      const w2 = await startWorker(sandbox, 'w2');
      workers.push(w2);
      let report: WorkersReport | undefined;
      await until(async () => {
        report = (await w1.client.call('workers.list', {})) as WorkersReport;
        return groupsOf(report, 'w1').length === 1 && groupsOf(report, 'w2').length === 1;
      }, 'the groups to split over w1 and w2', 60_000);
      const [moved] = groupsOf(report!, 'w2');
      const [stayed] = groupsOf(report!, 'w1');
      await until(() => servers(w1).length === 1, 'the moved group\'s server to end on w1', 30_000);
      expect(servers(w1).map((process) => process.cwd)).toEqual([workspaces[stayed!]]);

      // The new owner starts with nothing connected; a connect sent to w1 runs on w2, in the group's workspace.
      const listed = (await w1.client.callService('mcp.list', { group: moved })) as GroupMcpServer[];
      expect(listed.map((server) => server.state)).toEqual(['registered']);
      const sessionId = ((await w1.client.call('group.status', { group: moved })) as { activeSessionId: string | null }).activeSessionId;
      const connected = (await w1.client.callService('mcp.connect', { group: moved, server: 'everything', expectedSessionId: sessionId })) as GroupMcpServer;
      const [onW2] = servers(w2);
      expect(onW2?.cwd).toBe(workspaces[moved!]);
      expect(connected.pid).toBe(onW2!.pgid);

      // The group's agent (on w2) calls the tool; w1's client follows the run through the relay.
      const ends = collect(w1.client, 'run.end');
      await w1.client.call('subscribe', { group: moved });
      const receipt = await w1.client.call('prompt', { group: moved, text: `calls ${JSON.stringify([{ name: 'everything__echo', arguments: { message: 'on the owner' } }])}`, idempotencyKey: randomUUID() });
      await until(() => ends.some((end) => end.inputId === receipt.inputId), 'the relayed run.end', 60_000);
      const request = sandbox.requests().at(-1)!;
      const result = request.messages.find((message) => message.role === 'toolResult');
      expect(result).toMatchObject({ isError: false });
      expect(JSON.stringify(result!.content)).toContain('on the owner');

      // Disconnect through w1 ends it on w2.
      await w1.client.callService('mcp.disconnect', { group: moved, server: 'everything', expectedSessionId: receipt.sessionId });
      expect(groupAlive(onW2!.pgid)).toBe(false);
      const left = servers(w1)[0]!;
      for (const worker of workers) await worker.client.close().catch(() => undefined);
      expect(await w1.process.stop()).toBe(0);
      expect(groupAlive(left.pgid)).toBe(false);
    } finally {
      for (const worker of workers) await worker.client.close().catch(() => undefined);
      for (const worker of workers) await worker.process.stop();
    }
  }, 240_000);

  it('relays a server\'s elicitation from the owner to a client at another worker and its answer back; samples on the owner into one ledger row', async () => {
    const sandbox = await clawSandboxOn(
      'postgres',
      [
        '      mcp_servers: [everything]',
        '  lease_seconds: 10',
        'mcp_servers:',
        '  everything:',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(EVERYTHING)}, stdio]`,
        '    allow_tools: true',
        '    timeout: 60',
        '    refresh_on_change: true',
        '    sampling: { allow: true, max_tokens: 200 }',
        '',
      ].join('\n'),
    );
    const workers: ClawWorker[] = [];
    try {
      const owner = await startWorker(sandbox, 'wa');
      workers.push(owner);
      await until(async () => groupsOf(await owner.client.call('workers.list', {}), 'wa').length === 1, 'wa to own the group', 30_000);
      const other = await startWorker(sandbox, 'wb');
      workers.push(other);
      await until(async () => ((await other.client.call('workers.list', {})) as WorkersReport).workers.some((worker) => worker.name === 'wb' && worker.alive), 'wb to join the pool', 30_000);
      expect(groupsOf(await other.client.call('workers.list', {}), 'wa')).toEqual(['main']);

      // The client is connected to wb only; the connect runs on wa, which starts the server.
      const client = other.client;
      await client.call('subscribe', { group: 'main' });
      await client.callService('mcp.connect', { group: 'main', server: 'everything', expectedSessionId: null });
      expect(servers(owner)).toHaveLength(1);
      expect(servers(other)).toEqual([]);
      const aliases = async () => ((await client.callService('mcp.tools', { group: 'main' })) as Array<{ alias: string }>).map((tool) => tool.alias);
      await until(async () => (await aliases()).includes('everything__trigger-elicitation-request'), 'the announced tools to be refreshed on wa', 60_000);

      const run = async (name: string, args: unknown) => {
        const ends = collect(client, 'run.end');
        const receipt = await client.call('prompt', { group: 'main', text: `calls ${JSON.stringify([{ name, arguments: args }])}`, idempotencyKey: randomUUID() });
        await until(() => ends.some((end) => end.inputId === receipt.inputId), `the relayed run.end of ${name}`, 120_000);
        const result = sandbox.requests().at(-1)!.messages.at(-1)!;
        expect(result.role).toBe('toolResult');
        return { isError: result.isError, text: JSON.stringify(result.content) };
      };

      // The server on wa asks; the question reaches the client at wb, and wb's answer reaches the server on wa.
      const asked = collect(client, 'mcp.elicitation');
      const ended = collect(client, 'mcp.elicitation.ended');
      const elicited = run('everything__trigger-elicitation-request', {});
      await until(() => asked.length > 0, () => `the elicitation to reach the client at wb\n${owner.process.log()}`, 60_000);
      const { elicitation } = asked[0]!;
      expect(elicitation).toMatchObject({ group: 'main', server: 'everything', required: ['name'] });
      expect(((await client.callService('mcp.elicitations', { group: 'main' })) as Array<{ id: string }>).map((item) => item.id)).toEqual([elicitation.id]);
      expect(await client.callService('mcp.answer', { group: 'main', id: elicitation.id, action: 'accept', content: { name: 'Grace Hopper' } })).toEqual({ id: elicitation.id, action: 'accept' });
      const answered = await elicited;
      expect(answered.isError).toBe(false);
      expect(answered.text).toContain('- Name: Grace Hopper');
      await until(() => ended.length > 0, 'the end of the question to reach wb', 30_000);
      expect(ended).toEqual([{ group: 'main', id: elicitation.id, action: 'accept' }]);

      // Sampling runs on the owner's model call and is one ledger row, origin mcp, for the server.
      const sampled = await run('everything__trigger-sampling-request', { prompt: 'capital of France?', maxTokens: 50 });
      expect(sampled.isError).toBe(false);
      expect(sampled.text).toContain('echo: Resource trigger-sampling-request context: capital of France?');
      const byServer = (await client.call('usage.summary', { by: 'mcp' })) as Array<{ key: string | null; calls: number }>;
      expect(byServer.map((row) => ({ key: row.key, calls: row.calls }))).toEqual([{ key: 'everything', calls: 1 }]);
    } finally {
      for (const worker of workers) await worker.client.close().catch(() => undefined);
      for (const worker of workers) await worker.process.stop();
    }
  }, 300_000);
});
