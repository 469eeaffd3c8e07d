/**
 * MCP servers of claw groups in a pool of gateway workers on PostgreSQL: a
 * connection belongs to the worker that owns the group. When a group moves
 * to another worker its server is ended (process group reaped) on the old
 * one; a connect sent to any worker is handed to the new owner, which starts
 * the server in the group's workspace, and the group's agent calls it there.
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
});
