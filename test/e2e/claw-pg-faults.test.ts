/**
 * Two gateway workers on a PostgreSQL server this file starts and stops
 * itself (test/support/pg-server.sh on its own port and directory, never the
 * shared test server): restarted under load with `pg_ctl restart -m fast`,
 * and unreachable for longer than a lease. The workers make their LISTEN
 * connection again, pg-boss's fetch loops go on, groups whose lease could not
 * be renewed are fenced and taken again, clients get UNAVAILABLE naming the
 * store without its password meanwhile, and nothing acknowledged is lost or
 * run twice.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes, XdogError } from '../../core/index.js';
import type { WorkersReport } from '../../plugins/claw-gateway/index.js';
import { type ClawSandbox, clawSandbox, type ClawWorker, collect, groupsOf, startWorker, until } from '../support/claw.js';
import { tempDir } from '../support/temp.js';
import { testPgUrl } from '../support/stores.js';

const script = path.join(import.meta.dirname, '../support/pg-server.sh');
/** Its own port: the shared server is on 55432, the scale-out bench on 55477. */
const PORT = 55491;
const installed = fs.existsSync('/usr/lib/postgresql') && fs.readdirSync('/usr/lib/postgresql').length > 0;
// Where the suite has PostgreSQL (CI sets XDOG_TEST_PG_URL), this file runs too.
const enabled = installed && testPgUrl() !== undefined;
if (!enabled) console.warn('claw PostgreSQL fault tests skipped: they need PostgreSQL installed and XDOG_TEST_PG_URL set (see test/support/pg-server.sh)');

const server = (command: 'start' | 'restart' | 'halt' | 'resume' | 'stop', dir: string): string =>
  execFileSync('bash', [script, command, dir], { env: { ...process.env, PGPORT: String(PORT) }, encoding: 'utf8' }).trim();

const report = async (worker: ClawWorker): Promise<WorkersReport> => (await worker.client.call('workers.list', {})) as WorkersReport;

describe.skipIf(!enabled)('claw workers on a PostgreSQL server that restarts or goes away', () => {
  let dir: string;
  let adminUrl: string;
  beforeAll(() => {
    dir = tempDir('xdog-pg-faults-');
    adminUrl = server('start', dir);
  });
  afterAll(() => {
    if (dir) server('stop', dir);
  });

  /** A sandbox with groups main and g2 on a fresh database of the file's server, a short lease, and two workers that split the groups. */
  async function twoWorkers(): Promise<{ sandbox: ClawSandbox; w1: ClawWorker; w2: ClawWorker; url: string }> {
    const name = `faults_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const root = tempDir('xdog-pg-faults-ws-');
    fs.mkdirSync(path.join(root, 'ws-g2'));
    const sandbox = clawSandbox(`    g2:\n      workspace: ${path.join(root, 'ws-g2')}\n      model: faux/demo\n      enabled_tools: [bash, read]\n  lease_seconds: 3\n`);
    fs.writeFileSync(sandbox.configFile, fs.readFileSync(sandbox.configFile, 'utf8').replace(/^claw:\n/, 'claw:\n  store:\n    type: postgres\n    url_env: XDOG_CLAW_PG_URL\n'));
    sandbox.env.XDOG_CLAW_PG_URL = url.toString();
    const w1 = await startWorker(sandbox, 'w1');
    const w2 = await startWorker(sandbox, 'w2');
    await until(async () => {
      const pool = await report(w1);
      return pool.unowned.length === 0 && groupsOf(pool, 'w1').length === 1 && groupsOf(pool, 'w2').length === 1;
    }, 'the workers to split the groups', 30_000);
    // Held is not yet served: each has loaded its group.
    await until(() => /took group/.test(w2.process.log()) && /giving group \S+ back/.test(w1.process.log()), 'both workers to serve their group', 30_000);
    return { sandbox, w1, w2, url: url.toString() };
  }

  /** A failure with the workers' last log lines: what they did is the diagnosis. */
  function withLogs(error: unknown, ...workers: ClawWorker[]): Error {
    const logs = workers.map((worker) => `--- ${worker.name}:\n${worker.process.log().split('\n').slice(-60).join('\n')}`).join('\n');
    return new Error(`${(error as Error).message}\n${logs}`, { cause: error });
  }

  async function stopAll(...workers: ClawWorker[]): Promise<void> {
    for (const worker of workers) await worker.client.close().catch(() => undefined);
    for (const worker of workers) await worker.process.stop();
  }

  /** A prompt, retried while the store is not back yet (UNAVAILABLE that says it did not run). */
  async function promptWhenBack(worker: ClawWorker, group: string, text: string): Promise<{ inputId: string; status: string }> {
    const key = randomUUID();
    const end = Date.now() + 60_000;
    for (;;) {
      try {
        return await worker.client.call('prompt', { group, text, idempotencyKey: key });
      } catch (error) {
        if (Date.now() > end || !XdogError.is(error, ErrorCodes.UNAVAILABLE) || /outcome is unknown/.test(error.message)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  /** Model calls that started a run of `text`: its user message is the last one sent (later calls of the run end with tool results). */
  const runsOf = (sandbox: ClawSandbox, text: string) =>
    sandbox.requests().filter((request) => {
      const last = request.messages.at(-1);
      return last?.role === 'user' && JSON.stringify(last.content).includes(text);
    });

  it('survives `pg_ctl restart -m fast` under load: LISTEN and pg-boss come back, handed-off prompts and scheduled jobs run once, `claw workers` shows both', async () => {
    const { sandbox, w1, w2 } = await twoWorkers();
    try {
      const pool = await report(w1);
      const remote = groupsOf(pool, 'w2')[0]!;
      const local = groupsOf(pool, 'w1')[0]!;
      const ends = collect(w1.client, 'run.end');
      await w1.client.call('subscribe', { group: remote });
      await w1.client.call('subscribe', { group: local });
      // Load: a run in flight on each worker (one handed off) when the server goes.
      const before = [await w1.client.call('prompt', { group: remote, text: 'slow 2', idempotencyKey: randomUUID() }), await w1.client.call('prompt', { group: local, text: 'slow 2', idempotencyKey: randomUUID() })];
      // In flight means past its start (session loaded, turn begun): on a loaded machine the second may not have reached the model yet.
      await until(() => runsOf(sandbox, 'slow 2').length === 2, 'both runs to reach the model', 30_000);
      server('restart', dir);
      for (const worker of [w1, w2]) await until(() => /the LISTEN connection is back/.test(worker.process.log()), `${worker.name}'s LISTEN connection to come back`, 60_000);
      // The runs cut by the restart end (completed, or interrupted when their writes were cut): none is left running.
      await until(() => before.every((receipt) => ends.some((end) => end.inputId === receipt.inputId)), 'the runs in flight at the restart to end', 60_000).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}: ends ${JSON.stringify(ends)}, receipts ${JSON.stringify(before)}`);
      });
      for (const receipt of before) expect(['completed', 'interrupted']).toContain(ends.find((end) => end.inputId === receipt.inputId)!.status);

      // After: a prompt handed to the other worker and one on the owner complete, each run once.
      const after = [await promptWhenBack(w1, remote, 'echo after-restart-remote'), await promptWhenBack(w2, local, 'echo after-restart-local')];
      await until(() => after.every((receipt) => ends.some((end) => end.inputId === receipt.inputId)), 'the prompts after the restart to end', 60_000);
      for (const receipt of after) expect(ends.find((end) => end.inputId === receipt.inputId)).toMatchObject({ status: 'completed' });
      expect(runsOf(sandbox, 'after-restart-remote')).toHaveLength(1);
      expect(runsOf(sandbox, 'after-restart-local')).toHaveLength(1);
      // Each cut run reached the model at most once (none was run again after the restart).
      expect(runsOf(sandbox, 'slow 2').length).toBeLessThanOrEqual(2);

      // pg-boss's loops outlived the restart: a job scheduled now, on the group the other worker owns, runs once.
      await w1.client.callService('schedule.add', { group: remote, name: 'after-restart', at: Date.now() + 1_000, prompt: 'echo scheduled-after-restart' });
      await until(() => runsOf(sandbox, 'scheduled-after-restart').length > 0, 'the job scheduled after the restart to run', 60_000);
      const workers = await report(w2);
      expect(workers.workers.filter((worker) => worker.alive).map((worker) => worker.name).sort()).toEqual(['w1', 'w2']);
      expect(workers.unowned).toEqual([]);
      expect(runsOf(sandbox, 'scheduled-after-restart')).toHaveLength(1);
    } catch (error) {
      throw withLogs(error, w1, w2);
    } finally {
      await stopAll(w1, w2);
    }
  }, 240_000);

  it('unreachable for longer than a lease: groups self-fence, clients get UNAVAILABLE naming the store, all resume when it is back', async () => {
    const { sandbox, w1, w2, url } = await twoWorkers();
    try {
      server('halt', dir);
      // A lease of 3 s: past it, no worker may still serve a group it could not renew.
      for (const worker of [w1, w2]) await until(() => /could not renew the lease of group \S+ in time|lost the lease of group/.test(worker.process.log()), `${worker.name} to fence its group`, 30_000);
      const refused = await w1.client.call('prompt', { group: 'main', text: 'echo during-outage', idempotencyKey: randomUUID() }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(XdogError);
      expect(refused).toMatchObject({ code: ErrorCodes.UNAVAILABLE });
      const where = new URL(url);
      // The store named as the docs say, its password never (this one has none to leak; the host, port and database are named).
      expect((refused as XdogError).message).toContain(`${where.hostname}:${where.port}`);
      // Still unreachable a while later (more than three leases): the workers keep running and keep trying.
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      expect(w1.process.child.exitCode).toBeNull();
      expect(w2.process.child.exitCode).toBeNull();
      server('resume', dir);
      await until(async () => {
        const pool = await report(w1).catch(() => undefined);
        return pool !== undefined && pool.unowned.length === 0 && pool.workers.filter((worker) => worker.alive && worker.groups.length > 0).length === 2;
      }, 'both workers to serve again', 60_000);
      const ends = collect(w2.client, 'run.end');
      await w2.client.call('subscribe', { group: 'main' });
      await w2.client.call('subscribe', { group: 'g2' });
      const after = [await promptWhenBack(w2, 'main', 'echo after-outage-main'), await promptWhenBack(w2, 'g2', 'echo after-outage-g2')];
      await until(() => after.every((receipt) => ends.some((end) => end.inputId === receipt.inputId)), 'the prompts after the outage to end', 60_000);
      for (const receipt of after) expect(ends.find((end) => end.inputId === receipt.inputId)).toMatchObject({ status: 'completed' });
      expect(runsOf(sandbox, 'during-outage')).toHaveLength(0);
      expect(runsOf(sandbox, 'after-outage-main')).toHaveLength(1);
      expect(runsOf(sandbox, 'after-outage-g2')).toHaveLength(1);
    } catch (error) {
      throw withLogs(error, w1, w2);
    } finally {
      await stopAll(w1, w2);
    }
  }, 240_000);
});
