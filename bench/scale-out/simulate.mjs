/**
 * Past this machine: SIM_GROUPS groups (default 1,000) on SIM_WORKERS worker
 * processes (default 10) against one PostgreSQL, with a faux model that takes
 * 2-10 s per call, as real models do (`delayMs`, no CPU spent). SIM_USERS
 * people (default 100, so a tenth of the groups busy at a time) each work
 * their own SIM_GROUPS / SIM_USERS groups through the client of one worker:
 * prompt a group, wait for its run.end, go on with the next (a group owned by
 * another worker is handed off, its events relayed back). It reports, for an
 * idle window and for SIM_SECONDS of that load: database statements/s (the
 * claw store's and pg-boss's), connections by application, lease renewals/s,
 * turns/s, run-start latency (prompt sent to its receipt: the run started)
 * p50/p99, and CPU per turn of the workers and PostgreSQL (/proc). Its own
 * throwaway server on SIM_PG_PORT (default 55479), max_connections raised to
 * fit 15 per worker. Figures only; it never fails on timing.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectGateway, cpuMs, freshDatabase, OWN, pg, PG_STORE_YAML, PgServer, sleep, startGateway, statementCounts, until } from './harness.mjs';
import { percentile } from '../stats.mjs';

const GROUPS = Number(process.env.SIM_GROUPS ?? 1000);
const WORKERS = Number(process.env.SIM_WORKERS ?? 10);
const USERS = Number(process.env.SIM_USERS ?? 100);
const SECONDS = Number(process.env.SIM_SECONDS ?? 120);
const IDLE_SECONDS = Number(process.env.SIM_IDLE_SECONDS ?? 30);
const PORT = Number(process.env.SIM_PG_PORT ?? 55479);
const LEASE_SECONDS = Number(process.env.SIM_LEASE_SECONDS ?? 30);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-bench-simulate-'));
const server = new PgServer(PORT);
const load = () => os.loadavg()[0].toFixed(1);

function writeSandbox(dir) {
  const groups = Array.from({ length: GROUPS }, (_, index) => `g${index}`);
  const lines = groups.map((group) => {
    const workspace = path.join(dir, 'ws', group);
    fs.mkdirSync(workspace, { recursive: true });
    return `    ${group}:\n      workspace: ${workspace}\n      model: faux/demo\n      enabled_tools: []\n`;
  });
  fs.writeFileSync(path.join(dir, 'config.yaml'), `claw:\n${PG_STORE_YAML}  groups:\n${lines.join('')}  lease_seconds: ${LEASE_SECONDS}\n`);
  // The model: one text answer after 2-10 s (a wait, not work).
  const script = path.join(dir, 'slow-model.mjs');
  fs.writeFileSync(script, "export default () => ({ text: 'done', delayMs: 2000 + Math.floor(Math.random() * 8000) });\n");
  return { groups, script };
}

/** What the database did over a window: statements (store, pg-boss, renewals) and connections, sampled. */
async function observe(stats, seconds, during = async () => undefined) {
  await stats.query(`${OWN} SELECT pg_stat_statements_reset()`);
  const cpuBefore = server.cpuMs();
  const started = Date.now();
  const connections = new Map();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await stats.query(`${OWN} SELECT application_name AS app, count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() GROUP BY 1`);
      for (const row of rows) connections.set(row.app || '(none)', Math.max(connections.get(row.app || '(none)') ?? 0, row.n));
      await sleep(2_000);
    }
  })();
  const result = await during(seconds);
  await sleep(Math.max(0, started + seconds * 1000 - Date.now()));
  sampling = false;
  await sampler;
  const elapsed = (Date.now() - started) / 1000;
  const counts = await statementCounts(stats);
  const { rows } = await stats.query(
    `${OWN} SELECT coalesce(sum(calls), 0)::bigint AS calls FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query ILIKE 'UPDATE claw_group_leases SET expires_at%'`,
  );
  return { elapsed, counts, renewals: Number(rows[0].calls), connections, serverCpu: server.cpuMs() - cpuBefore, result };
}

function printWindow(name, window, turns) {
  const perSecond = (calls) => (calls / window.elapsed).toFixed(1);
  const all = window.counts.store.calls + window.counts.boss.calls;
  const connections = [...window.connections].map(([app, n]) => `${app} ${n}`).join(', ');
  const total = [...window.connections.values()].reduce((sum, n) => sum + n, 0);
  console.log(`${name}: ${perSecond(all)} statements/s (store ${perSecond(window.counts.store.calls)}, pg-boss ${perSecond(window.counts.boss.calls)}); lease renewals ${perSecond(window.renewals)}/s; connections (max seen) ${total}: ${connections}; PostgreSQL CPU ${(window.serverCpu / window.elapsed / 10).toFixed(1)}% of a core${turns ? `; ${(all / turns).toFixed(1)} statements/turn all in` : ''}`);
}

async function main() {
  await server.start([`ALTER SYSTEM SET max_connections = ${WORKERS * 15 + 50}`]);
  const store = await freshDatabase(server, 'bench_simulate');
  const dir = path.join(work, 'sandbox');
  fs.mkdirSync(dir, { recursive: true });
  const { groups, script } = writeSandbox(dir);
  const stats = new pg.Client({ connectionString: store.url });
  await stats.connect();
  const gateways = [];
  const clients = [];
  console.log(`node ${process.version}; ${os.cpus().length} cores; ${GROUPS} groups on ${WORKERS} workers, lease ${LEASE_SECONDS} s; ${USERS} users, faux model 2-10 s per call; load ${load()}`);
  try {
    const started = Date.now();
    // The first creates the schema; the others start together.
    gateways.push(await startGateway(dir, 'w1', store, true, { fauxScript: script, readyMs: 600_000 }));
    gateways.push(...(await Promise.all(Array.from({ length: WORKERS - 1 }, (_, index) => startGateway(dir, `w${index + 2}`, store, true, { fauxScript: script, readyMs: 600_000 })))));
    for (const gateway of gateways) clients.push(await connectGateway({ client: 'bench', locations: gateway.locations }));
    await until(
      'every group to have an owner',
      async () => {
        const report = await clients[0].call('workers.list', {});
        const held = report.workers.filter((worker) => worker.alive).map((worker) => worker.groups.length);
        return report.unowned.length === 0 && held.length === WORKERS && Math.max(...held) - Math.min(...held) <= 1;
      },
      1_200_000,
    );
    console.log(`settled: every group owned, shares within one, ${((Date.now() - started) / 1000).toFixed(0)} s after the first worker started; load ${load()}`);
    const cpuOf = () => gateways.reduce((sum, gateway) => sum + cpuMs(gateway.pid), 0);

    let gatewayCpu = cpuOf();
    const idle = await observe(stats, IDLE_SECONDS);
    printWindow(`idle (${IDLE_SECONDS} s)`, idle);
    console.log(`  workers' CPU idle: ${((cpuOf() - gatewayCpu) / idle.elapsed / 10).toFixed(1)}% of a core in all`);

    // Each user: its own groups, through one worker's client, which follows them.
    const users = Array.from({ length: USERS }, (_, user) => ({ client: clients[user % clients.length], groups: groups.filter((_, index) => index % USERS === user) }));
    const waiting = new Map();
    const ended = new Set();
    for (const client of clients) client.on('run.end', (params) => (waiting.has(params.inputId) ? waiting.get(params.inputId)() : ended.add(params.inputId)));
    for (const user of users) for (const group of user.groups) await user.client.call('subscribe', { group });
    const latencies = [];
    let turns = 0;
    let failed = 0;
    gatewayCpu = cpuOf();
    const busy = await observe(stats, SECONDS, async (seconds) => {
      const end = Date.now() + seconds * 1000;
      await Promise.all(
        users.map(async (user) => {
          for (let turn = 0; Date.now() < end; turn++) {
            const group = user.groups[turn % user.groups.length];
            const sent = Date.now();
            try {
              const receipt = await user.client.call('prompt', { group, text: `turn ${turn}`, idempotencyKey: randomUUID() });
              latencies.push(Date.now() - sent);
              if (!ended.delete(receipt.inputId)) await new Promise((resolve) => waiting.set(receipt.inputId, resolve));
              waiting.delete(receipt.inputId);
              turns++;
            } catch (error) {
              failed++;
              if (failed <= 5) console.log(`  a prompt failed: ${error.message}`);
            }
          }
        }),
      );
    });
    gatewayCpu = cpuOf() - gatewayCpu;
    printWindow(`under load (${SECONDS} s and the turns still running)`, busy, turns);
    console.log(
      `  ${turns} turns (${failed} failed), ${(turns / busy.elapsed).toFixed(1)} turns/s; run-start latency p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms; CPU per turn ${(gatewayCpu / turns).toFixed(1)} ms workers + ${(busy.serverCpu / turns).toFixed(1)} ms PostgreSQL; load ${load()}`,
    );
  } finally {
    for (const client of clients) await client.close().catch(() => undefined);
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await stats.end().catch(() => undefined);
    await store.drop().catch(() => undefined);
    server.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

await main();
