/**
 * Approvals in a pool of gateway workers on PostgreSQL: the call is asked on
 * the worker that owns the group and answered through the other one. The
 * owner runs it exactly once, and every client, on either worker, hears of
 * the request and of the answer exactly once (the owner publishes both; the
 * relay carries them to the other worker's clients).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkersReport } from '../../plugins/claw-gateway/index.js';
import { type ClawWorker, collect, groupsOf, startWorker, until } from '../support/claw.js';
import { clawSandboxOn, storeKinds } from '../support/stores.js';
import { tempDir } from '../support/temp.js';


describe.runIf(storeKinds().includes('postgres'))('approvals across workers [postgres]', () => {
  it('asked on the owner, answered through the other worker: run once, and each client hears of it once', async () => {
    const g2 = path.join(tempDir('xdog-approvals-workers-'), 'ws-g2');
    fs.mkdirSync(g2);
    const approvals = '      approvals: { mode: mutating, rules: [{ allow: bash, command: "echo" }] }';
    const sandbox = await clawSandboxOn('postgres', [approvals, '    g2:', `      workspace: ${g2}`, '      model: faux/demo', '      enabled_tools: [bash, read]', approvals, '  lease_seconds: 10', ''].join('\n'));
    const workers: ClawWorker[] = [];
    try {
      const w1 = await startWorker(sandbox, 'w1');
      workers.push(w1);
      await until(async () => groupsOf(await w1.client.call('workers.list', {}), 'w1').length === 2, 'w1 to take both groups', 60_000);
      const w2 = await startWorker(sandbox, 'w2');
      workers.push(w2);
      let report: WorkersReport | undefined;
      await until(async () => {
        report = (await w1.client.call('workers.list', {})) as WorkersReport;
        return groupsOf(report, 'w1').length === 1 && groupsOf(report, 'w2').length === 1;
      }, 'the groups to split over w1 and w2', 90_000);
      const [group] = groupsOf(report!, 'w1');
      const workspace = group === 'main' ? sandbox.workspace : g2;
      const [owner, other] = [w1, w2];

      const seen = new Map<ClawWorker, { requested: Array<Record<string, any>>; resolved: Array<Record<string, any>>; ends: Array<Record<string, any>> }>();
      for (const worker of workers) {
        seen.set(worker, { requested: collect(worker.client, 'approval.requested'), resolved: collect(worker.client, 'approval.resolved'), ends: collect(worker.client, 'run.end') });
        await worker.client.call('subscribe', { group });
      }
      const receipt = await owner.client.call('prompt', { group, text: 'run echo ran >> counter.txt && touch done.txt', idempotencyKey: randomUUID() });
      await until(() => workers.every((worker) => seen.get(worker)!.requested.length === 1), 'the request on both workers\' clients', 60_000);
      const id = seen.get(owner)!.requested[0]!.approval.id as number;
      expect(seen.get(other)!.requested[0]!.approval).toMatchObject({ id, group, status: 'pending', args: { command: 'echo ran >> counter.txt && touch done.txt' } });

      // Answered through the worker that does not own the group: the owner runs the call.
      const answered = (await other.client.callService('approvals.approve', { id, by: 'bob' })) as { approval: { status: string } };
      expect(answered.approval.status).toBe('approved');
      await until(() => workers.every((worker) => seen.get(worker)!.ends.some((end) => end.inputId === receipt.inputId)), 'the run to end, seen on both workers', 60_000);
      expect(fs.readFileSync(path.join(workspace, 'counter.txt'), 'utf8')).toBe('ran\n');
      expect(fs.existsSync(path.join(workspace, 'done.txt'))).toBe(true);
      for (const worker of workers) {
        const resolved = seen.get(worker)!.resolved;
        expect(resolved.map((event) => [event.approval.id, event.approval.status, event.approval.answeredBy]), worker.name).toEqual([[id, 'approved', 'bob']]);
      }
      // A second answer, through either worker, is refused naming the one that stands.
      const late = await owner.client.callService('approvals.deny', { id, reason: 'too late', by: 'alice' }).catch((error: Error) => error);
      expect(String(late)).toContain(`approval ${id} was already answered: approved by bob`);
    } finally {
      for (const worker of workers) await worker.client.close().catch(() => undefined);
      for (const worker of workers) await worker.process.stop();
    }
  }, 300_000);
});
