/**
 * The scale-out benchmark: scheduled turns per second with the faux model
 * for 1, 2 and 3 gateway workers (`xdog claw gateway run --worker`, ../dist)
 * on one PostgreSQL database, and the same workload on the single SQLite
 * gateway as the baseline. Workload: BENCH_GROUPS groups, BENCH_JOBS one-shot
 * jobs per group, all due at one moment, added through the workers' clients
 * (`schedule.add`); the clock runs from that moment to the end of the last
 * run (the store's run rows). Each measurement gets a fresh database (or
 * SQLite file) and fresh worker processes; the order alternates from round
 * to round (sqlite,1,2,3 / 3,2,1,sqlite ...). The database's own overhead is
 * read from pg_stat_statements over the same window: server-side statement
 * time per turn and statements per turn, split into the claw store's and
 * pg-boss's (schema xdog_jobs). It starts its own throwaway PostgreSQL
 * server (test/support/pg-server.sh, port BENCH_PG_PORT, default 55477) and
 * stops it at the end. Figures only; it never fails on timing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median, spread } from '../stats.mjs';
import { connectGateway, cpuMs, freshDatabase, OWN, pg, PG_STORE_YAML, PgServer, sleep, Sqlite, startGateway, statementCounts, until } from './harness.mjs';

const GROUPS = Number(process.env.BENCH_GROUPS ?? 30);
const JOBS = Number(process.env.BENCH_JOBS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PORT = Number(process.env.BENCH_PG_PORT ?? 55477);
/** How far ahead the jobs are due: time to add them all first. */
const DUE_IN_MS = Number(process.env.BENCH_DUE_IN_MS ?? 20_000);
const LEASE_SECONDS = 5;
const TURNS = GROUPS * JOBS;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-bench-scale-out-'));
const pgServer = new PgServer(PORT);

/** A fresh store: a new database on the server, or a new SQLite file. */
async function freshStore(kind, label) {
  if (kind === 'sqlite') return { kind, file: path.join(work, label, 'data', 'xdog', 'claw', 'claw.db') };
  return { kind, ...(await freshDatabase(pgServer, `bench_${label.replace(/\W/g, '_')}`)) };
}

function writeConfig(dir, store) {
  const groups = Array.from({ length: GROUPS }, (_, index) => `g${index}`);
  const lines = groups.map((group) => {
    const workspace = path.join(dir, 'ws', group);
    fs.mkdirSync(workspace, { recursive: true });
    return `    ${group}:\n      workspace: ${workspace}\n      model: faux/demo\n      enabled_tools: []\n`;
  });
  const storeLines = store.kind === 'postgres' ? PG_STORE_YAML : '';
  fs.writeFileSync(path.join(dir, 'config.yaml'), `claw:\n${storeLines}  groups:\n${lines.join('')}  lease_seconds: ${LEASE_SECONDS}\n`);
  return groups;
}

/** Reads the store: how many scheduled runs finished, and the last end. */
function storeReader(store) {
  if (store.kind === 'sqlite') {
    let db;
    return {
      async finished() {
        db ??= new Sqlite(store.file, { readonly: true, fileMustExist: true });
        return db.prepare(`SELECT count(*) AS done, max(ended_at) AS last, sum(CASE WHEN status = 'completed' THEN 0 ELSE 1 END) AS bad FROM claw_schedule_runs WHERE ended_at IS NOT NULL`).get();
      },
      async close() {
        db?.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: store.url });
  const connected = client.connect();
  return {
    async finished() {
      await connected;
      const { rows } = await client.query(`${OWN} SELECT count(*)::int AS done, max(ended_at)::bigint AS last, sum(CASE WHEN status = 'completed' THEN 0 ELSE 1 END)::int AS bad FROM claw_schedule_runs WHERE ended_at IS NOT NULL`);
      return { done: rows[0].done, last: Number(rows[0].last), bad: rows[0].bad ?? 0 };
    },
    async resetStatements() {
      await connected;
      await client.query(`${OWN} SELECT pg_stat_statements_reset()`);
    },
    /** Server-side time and calls of this database's statements since the reset: the claw store's and pg-boss's. */
    async statements() {
      await connected;
      return statementCounts(client);
    },
    async close() {
      await connected.catch(() => undefined);
      await client.end();
    },
  };
}

/** One measurement: `workers` processes (0 = the single SQLite gateway) on a fresh store. */
async function measure(workers, label) {
  const kind = workers === 0 ? 'sqlite' : 'postgres';
  const dir = path.join(work, label);
  fs.mkdirSync(dir, { recursive: true });
  const store = await freshStore(kind, label);
  const groups = writeConfig(dir, store);
  const gateways = [];
  const clients = [];
  const reader = storeReader(store);
  try {
    if (workers === 0) gateways.push(await startGateway(dir, 'single', store, false));
    // One at a time: the first creates the schema, the others find it.
    else for (let index = 1; index <= workers; index++) gateways.push(await startGateway(dir, `w${index}`, store, true));
    for (const gateway of gateways) clients.push(await connectGateway({ client: 'bench', locations: gateway.locations }));
    if (workers > 0) {
      await until('every group to have an owner', async () => {
        const report = await clients[0].call('workers.list', {});
        const held = report.workers.filter((worker) => worker.alive).map((worker) => worker.groups.length);
        return report.unowned.length === 0 && held.length === workers && Math.max(...held) - Math.min(...held) <= 1;
      });
    }

    const dueAt = Date.now() + DUE_IN_MS;
    const adds = groups.flatMap((group, groupIndex) => Array.from({ length: JOBS }, (_, job) => ({ group, job, client: clients[(groupIndex + job) % clients.length] })));
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < adds.length) {
          const { group, job, client } = adds[next++];
          await client.callService('schedule.add', { group, name: `job${job}`, at: dueAt, prompt: `job ${group} ${job}` });
        }
      }),
    );
    if (Date.now() >= dueAt) throw new Error(`bench: adding ${TURNS} jobs took longer than BENCH_DUE_IN_MS (${DUE_IN_MS} ms); raise it`);
    await sleep(Math.max(0, dueAt - Date.now() - 500));
    if (pgServer.statements && kind === 'postgres') await reader.resetStatements();
    const cpuBefore = { gateways: gateways.reduce((sum, gateway) => sum + cpuMs(gateway.pid), 0), server: kind === 'postgres' ? pgServer.cpuMs() : 0 };

    let state = { done: 0, last: 0, bad: 0 };
    await until(`${TURNS} scheduled runs to end (${label})`, async () => {
      state = await reader.finished();
      return state.done >= TURNS;
    });
    const seconds = (state.last - dueAt) / 1000;
    const gatewayCpu = gateways.reduce((sum, gateway) => sum + cpuMs(gateway.pid), 0) - cpuBefore.gateways;
    const serverCpu = kind === 'postgres' ? pgServer.cpuMs() - cpuBefore.server : 0;
    const result = { label, workers, kind, turns: state.done, failed: state.bad, seconds, turnsPerSecond: TURNS / seconds, gatewayCpuMsPerTurn: gatewayCpu / TURNS, serverCpuMsPerTurn: serverCpu / TURNS };
    if (pgServer.statements && kind === 'postgres') {
      const { store: own, boss } = await reader.statements();
      Object.assign(result, {
        msPerTurn: (own.ms + boss.ms) / TURNS,
        statementsPerTurn: (own.calls + boss.calls) / TURNS,
        storeMsPerTurn: own.ms / TURNS,
        storeStatementsPerTurn: own.calls / TURNS,
        bossMsPerTurn: boss.ms / TURNS,
        bossStatementsPerTurn: boss.calls / TURNS,
      });
    }
    return result;
  } finally {
    for (const client of clients) await client.close().catch(() => undefined);
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await reader.close();
    await store.drop?.();
  }
}

const fmt = (value, digits = 1) => (value === undefined ? '-' : value.toFixed(digits));

async function main() {
  await pgServer.start();
  const load = () => os.loadavg()[0].toFixed(1);
  console.log(`node ${process.version}; ${os.cpus().length} cores; ${GROUPS} groups x ${JOBS} one-shot jobs due at once = ${TURNS} turns; faux model; ${ROUNDS} rounds, order alternating; pg_stat_statements ${pgServer.statements ? 'on' : 'not installed'}; load ${load()}`);
  const results = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? [0, 1, 2, 3] : [3, 2, 1, 0];
      for (const workers of order) {
        const result = await measure(workers, `r${round}-${workers === 0 ? 'sqlite' : `w${workers}`}`);
        result.round = round;
        result.load = load();
        results.push(result);
        const overhead = result.msPerTurn === undefined ? '' : `; server ${fmt(result.msPerTurn, 2)} ms and ${fmt(result.statementsPerTurn)} statements per turn (store ${fmt(result.storeMsPerTurn, 2)} ms / ${fmt(result.storeStatementsPerTurn)}, pg-boss ${fmt(result.bossMsPerTurn, 2)} ms / ${fmt(result.bossStatementsPerTurn)})`;
        console.log(`round ${round} ${workers === 0 ? 'sqlite single gateway' : `postgres ${workers} worker(s)`}: ${fmt(result.turnsPerSecond)} turns/s (${result.turns} turns in ${fmt(result.seconds, 2)} s, ${result.failed} not completed); CPU per turn ${fmt(result.gatewayCpuMsPerTurn, 2)} ms gateways + ${fmt(result.serverCpuMsPerTurn, 2)} ms PostgreSQL${overhead}; load ${result.load}`);
      }
    }
  } finally {
    pgServer.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }

  const of = (workers) => results.filter((result) => result.workers === workers);
  const one = new Map(of(1).map((result) => [result.round, result.turnsPerSecond]));
  console.log('\nsummary (medians over rounds; ratios paired within a round)');
  for (const workers of [0, 1, 2, 3]) {
    const rows = of(workers);
    const tps = median(rows.map((row) => row.turnsPerSecond));
    const ratios = rows.map((row) => row.turnsPerSecond / one.get(row.round));
    const { min, max } = spread(ratios);
    const name = workers === 0 ? 'sqlite 1 gateway' : `postgres ${workers} worker(s)`;
    const overhead = workers === 0 ? '' : `; server ${fmt(median(rows.map((row) => row.msPerTurn ?? Number.NaN)), 2)} ms/turn, ${fmt(median(rows.map((row) => row.statementsPerTurn ?? Number.NaN)))} statements/turn (store ${fmt(median(rows.map((row) => row.storeStatementsPerTurn ?? Number.NaN)))}, pg-boss ${fmt(median(rows.map((row) => row.bossStatementsPerTurn ?? Number.NaN)))})`;
    const cpu = `CPU/turn ${fmt(median(rows.map((row) => row.gatewayCpuMsPerTurn)), 2)} ms gateways + ${fmt(median(rows.map((row) => row.serverCpuMsPerTurn)), 2)} ms PostgreSQL`;
    console.log(`${name}: ${fmt(tps)} turns/s; ratio to postgres 1 worker ${fmt(median(ratios), 2)} (${fmt(min, 2)}-${fmt(max, 2)}); ${cpu}${overhead}`);
    if (workers > 0) console.log(`ratio workers-${workers} ${median(ratios).toFixed(2)}`);
  }
}

await main();
