/**
 * What the scale-out benches share: the built product (../dist), a throwaway
 * PostgreSQL server with pg_stat_statements (test/support/pg-server.sh), fresh
 * databases, gateway processes (`xdog claw gateway run [--worker]`), CPU read
 * from /proc, and the database's statement counts. Figures only.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = (file) => path.join(root, 'dist', file);
if (!fs.existsSync(dist('plugins/claw-runs/index.js'))) {
  console.error('bench: ../dist is missing or old; run `npx tsc -p tsconfig.build.json` in the repository root first');
  process.exit(2);
}
export const { connectGateway, gatewayLocations } = await import(dist('plugins/claw-gateway/index.js'));
// The product's own drivers (the root node_modules), not bench peers.
const requireRoot = createRequire(path.join(root, 'package.json'));
export const pg = requireRoot('pg');
export const Sqlite = requireRoot('better-sqlite3');

/** Marks the bench's own queries, so the statement counts leave them out. */
export const OWN = '/* xdog-bench */';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until(what, predicate, deadlineMs = 600_000) {
  const end = Date.now() + deadlineMs;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error(`bench: timed out waiting for ${what}`);
    await sleep(100);
  }
}

export async function withClient(url, use) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

/** utime + stime of a process (field 14 and 15 of /proc/PID/stat), plus its reaped children's when asked, in ms; 0 when it is gone. */
export function cpuMs(pid, children = false) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
    return ticks * TICK_MS;
  } catch {
    return 0;
  }
}

/** A throwaway PostgreSQL server on `port` in its own temp directory (the server runs as `postgres` when the bench runs as root). */
export class PgServer {
  constructor(port) {
    this.port = port;
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-bench-pg-'));
    this.script = path.join(root, 'test/support/pg-server.sh');
    this.adminUrl = '';
    this.statements = false;
  }

  /** Starts it, with pg_stat_statements loaded when it is installed; `settings` are more `ALTER SYSTEM` lines. */
  async start(settings = []) {
    this.adminUrl = execFileSync('bash', [this.script, 'start', this.dir], { env: { ...process.env, PGPORT: String(this.port) }, encoding: 'utf8' }).trim();
    const bin = fs.readdirSync('/usr/lib/postgresql').sort().at(-1);
    this.statements = fs.existsSync(`/usr/share/postgresql/${bin}/extension/pg_stat_statements.control`);
    const lines = [...(this.statements ? [`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`] : []), ...settings];
    if (!lines.length) return this;
    await withClient(this.adminUrl, async (client) => {
      for (const line of lines) await client.query(line);
    });
    const ctl = [`/usr/lib/postgresql/${bin}/bin/pg_ctl`, '-D', path.join(this.dir, 'data'), '-w', '-l', path.join(this.dir, 'server.log'), 'restart'];
    if (process.getuid?.() === 0) execFileSync('runuser', ['-u', 'postgres', '--', ...ctl], { stdio: 'ignore' });
    else execFileSync(ctl[0], ctl.slice(1), { stdio: 'ignore' });
    return this;
  }

  stop() {
    try {
      execFileSync('bash', [this.script, 'stop', this.dir], { stdio: 'ignore' });
    } catch {
      // Already gone.
    }
  }

  /** The server's CPU in ms: every live server process, plus what the postmaster reaped of its exited backends. */
  cpuMs() {
    const postmaster = Number(fs.readFileSync(path.join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    let total = cpuMs(postmaster, true);
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry) || Number(entry) === postmaster) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid === postmaster) total += cpuMs(Number(entry));
      } catch {
        // Gone meanwhile.
      }
    }
    return total;
  }
}

/** A new database `name` on the server (with the pg_stat_statements view when loaded): { url, name, drop() }. */
export async function freshDatabase(server, name) {
  await withClient(server.adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(server.adminUrl);
  url.pathname = `/${name}`;
  // The view that reads the statistics lives in the database that asks.
  if (server.statements) await withClient(url.toString(), (client) => client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements'));
  return { url: url.toString(), name, drop: () => withClient(server.adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) };
}

/**
 * Starts one gateway process (a worker with `worker`) of the sandbox `dir`
 * (its config.yaml) and resolves once it is ready. `fauxScript` is the faux
 * model's script (default: the tests' scripted model).
 */
export function startGateway(dir, name, store, worker, { fauxScript = path.join(root, 'test/fixtures/claw/faux-model.mjs'), readyMs = 120_000 } = {}) {
  const env = {
    ...process.env,
    XDOG_CONFIG: path.join(dir, 'config.yaml'),
    XDG_RUNTIME_DIR: path.join(dir, `run-${name}`),
    XDG_STATE_HOME: path.join(dir, 'state'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDOG_FAUX_SCRIPT: fauxScript,
    OCLIF_SKIP_NEW_VERSION_CHECK: '1',
    ...(store.url ? { XDOG_BENCH_PG_URL: store.url } : {}),
  };
  const args = [path.join(root, 'bin/run.js'), 'claw', 'gateway', 'run', ...(worker ? ['--worker', '--name', name] : [])];
  const child = spawn(process.execPath, args, { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (log += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const ready = until(
    `gateway ${name} to get ready`,
    () => {
      if (child.exitCode !== null) throw new Error(`bench: gateway ${name} exited:\n${log}`);
      return log.includes('gateway: ready:');
    },
    readyMs,
  );
  return ready.then(() => ({
    name,
    pid: child.pid,
    locations: gatewayLocations(env),
    log: () => log,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  }));
}

/** The claw store's YAML lines for PostgreSQL (the URL in XDOG_BENCH_PG_URL, which startGateway sets). */
export const PG_STORE_YAML = '  store:\n    type: postgres\n    url_env: XDOG_BENCH_PG_URL\n';

/**
 * The database's statements since the last reset (pg_stat_statements), the
 * bench's own left out, split into the claw store's and pg-boss's (schema
 * xdog_jobs); `top` also lists the most called statements.
 */
export async function statementCounts(client, top = 0) {
  const where = `dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%xdog-bench%'`;
  const { rows } = await client.query(`${OWN} SELECT (query ILIKE '%xdog_jobs%') AS boss, sum(calls)::bigint AS calls, sum(total_exec_time) AS ms FROM pg_stat_statements WHERE ${where} GROUP BY 1`);
  const of = (boss) => rows.find((row) => row.boss === boss) ?? { calls: 0, ms: 0 };
  const result = { store: { calls: Number(of(false).calls), ms: Number(of(false).ms) }, boss: { calls: Number(of(true).calls), ms: Number(of(true).ms) } };
  if (top) {
    const listed = await client.query(`${OWN} SELECT calls::bigint AS calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query FROM pg_stat_statements WHERE ${where} ORDER BY calls DESC LIMIT ${Number(top)}`);
    result.top = listed.rows.map((row) => ({ calls: Number(row.calls), query: row.query }));
  }
  return result;
}
