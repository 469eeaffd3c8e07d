/**
 * Statements per prompt on PostgreSQL, counted by pg_stat_statements: two
 * workers (`xdog claw gateway run --worker`, ../dist) share BENCH_GROUPS
 * groups; a client of w1 sends BENCH_PROMPTS prompts one after the other
 * (each waits for its run.end) to groups w1 owns, then as many to groups w2
 * owns (handed off through claw_handoffs, events relayed back). The
 * background the workers make anyway (renewals, heartbeats, fallback checks,
 * pg-boss fetches) is measured first over an idle window and taken off in
 * proportion to each phase's length. It prints statements per prompt, store
 * and pg-boss apart, and the most called statements. Its own throwaway server
 * on BENCH_PG_PORT (default 55478). Figures only.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectGateway, freshDatabase, pg, PG_STORE_YAML, PgServer, sleep, startGateway, statementCounts, until } from './harness.mjs';

const GROUPS = Number(process.env.BENCH_GROUPS ?? 4);
const PROMPTS = Number(process.env.BENCH_PROMPTS ?? 40);
const PORT = Number(process.env.BENCH_PG_PORT ?? 55478);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 15_000);
/** How many of the most called statements each phase lists. */
const TOP = Number(process.env.BENCH_TOP ?? 40);
/** The default lease: its renewals are part of the background. */
const LEASE_SECONDS = 30;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-bench-prompts-'));
const server = new PgServer(PORT);

function writeConfig(dir) {
  const groups = Array.from({ length: GROUPS }, (_, index) => `g${index}`);
  const lines = groups.map((group) => {
    const workspace = path.join(dir, 'ws', group);
    fs.mkdirSync(workspace, { recursive: true });
    return `    ${group}:\n      workspace: ${workspace}\n      model: faux/demo\n      enabled_tools: []\n`;
  });
  fs.writeFileSync(path.join(dir, 'config.yaml'), `claw:\n${PG_STORE_YAML}  groups:\n${lines.join('')}  lease_seconds: ${LEASE_SECONDS}\n`);
}

const total = (counts) => counts.store.calls + counts.boss.calls;

async function main() {
  await server.start();
  const store = await freshDatabase(server, 'bench_prompts');
  const dir = path.join(work, 'sandbox');
  fs.mkdirSync(dir, { recursive: true });
  writeConfig(dir);
  const gateways = [];
  const stats = new pg.Client({ connectionString: store.url });
  await stats.connect();
  let client;
  try {
    for (const name of ['w1', 'w2']) gateways.push(await startGateway(dir, name, store, true));
    client = await connectGateway({ client: 'bench', locations: gateways[0].locations });
    let report;
    await until('the groups to settle over both workers', async () => {
      report = await client.call('workers.list', {});
      const held = report.workers.filter((worker) => worker.alive).map((worker) => worker.groups.length);
      return report.unowned.length === 0 && held.length === 2 && Math.max(...held) - Math.min(...held) <= 1;
    });
    const owned = (name) => report.workers.find((worker) => worker.name === name).groups.map((lease) => lease.group);
    // run.end may come before the prompt's receipt: remember ends nobody waits for yet.
    const waiting = new Map();
    const ended = new Set();
    client.on('run.end', (params) => (waiting.has(params.inputId) ? waiting.get(params.inputId)() : ended.add(params.inputId)));
    for (let index = 0; index < GROUPS; index++) await client.call('subscribe', { group: `g${index}` });
    // A first prompt per group: sessions exist and caches are warm before counting.
    const prompt = async (group, text) => {
      const receipt = await client.call('prompt', { group, text, idempotencyKey: randomUUID() });
      if (!ended.delete(receipt.inputId)) await new Promise((resolve) => waiting.set(receipt.inputId, resolve));
      waiting.delete(receipt.inputId);
    };
    for (let index = 0; index < GROUPS; index++) await prompt(`g${index}`, 'warm up');
    await sleep(2_000);

    const window = async (work) => {
      await stats.query(`/* xdog-bench */ SELECT pg_stat_statements_reset()`);
      const started = Date.now();
      await work();
      const ms = Date.now() - started;
      return { ms, counts: await statementCounts(stats, TOP) };
    };
    const idle = await window(() => sleep(IDLE_MS));
    const idlePerMs = { store: idle.counts.store.calls / idle.ms, boss: idle.counts.boss.calls / idle.ms };
    console.log(`node ${process.version}; ${os.cpus().length} cores; 2 workers, ${GROUPS} groups, lease ${LEASE_SECONDS} s; faux model; load ${os.loadavg()[0].toFixed(1)}`);
    console.log(`background, idle: ${(total(idle.counts) / (idle.ms / 1000)).toFixed(1)} statements/s (store ${(idlePerMs.store * 1000).toFixed(1)}, pg-boss ${(idlePerMs.boss * 1000).toFixed(1)})`);
    for (const [phase, groups] of [
      ['on its owner', owned('w1')],
      ['handed off', owned('w2')],
    ]) {
      const measured = await window(async () => {
        for (let index = 0; index < PROMPTS; index++) await prompt(groups[index % groups.length], `prompt ${index}`);
      });
      const storePer = (measured.counts.store.calls - idlePerMs.store * measured.ms) / PROMPTS;
      const bossPer = (measured.counts.boss.calls - idlePerMs.boss * measured.ms) / PROMPTS;
      console.log(`\nprompt ${phase}: ${(storePer + bossPer).toFixed(1)} statements/prompt (store ${storePer.toFixed(1)}, pg-boss ${bossPer.toFixed(1)}), background taken off; ${PROMPTS} prompts in ${(measured.ms / 1000).toFixed(1)} s; load ${os.loadavg()[0].toFixed(1)}`);
      const commits = measured.counts.top.find((row) => row.query === 'COMMIT')?.calls ?? 0;
      const idleCommits = idle.counts.top.find((row) => row.query === 'COMMIT')?.calls ?? 0;
      console.log(`  commits/prompt: ${((commits - (idleCommits / idle.ms) * measured.ms) / PROMPTS).toFixed(2)} (background taken off)`);
      for (const row of measured.counts.top) console.log(`  ${(row.calls / PROMPTS).toFixed(2).padStart(6)}  ${row.query}`);
    }
  } finally {
    await client?.close().catch(() => undefined);
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await stats.end().catch(() => undefined);
    await store.drop().catch(() => undefined);
    server.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

await main();
