/**
 * The session-store benchmark. Builds the same 20,000-entry session in xdog's
 * store and in a pi JSONL session file, then, in fresh processes and
 * alternating which system goes first each round, times opening the session
 * and building its model context on both. Prints the median of the per-round
 * ratios with their spread, `ratio open-context <pi ms / xdog ms>`, and
 * durable appends/s (one entry per transaction) against raw better-sqlite3
 * commits with the same pragmas, `ratio appends <xdog / raw>`. Figures only;
 * it never fails on timing. Needs ../dist (`npx tsc -p tsconfig.build.json`).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENTRIES } from './workload.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
if (!process.env.BENCH_ROOT && !fs.existsSync(new URL('../../dist/plugins/sessions/index.js', import.meta.url))) {
  console.error('bench: ../dist is missing; run `npx tsc -p tsconfig.build.json` in the repository root first');
  process.exit(2);
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 11);
const appendCount = Number(process.env.BENCH_APPENDS ?? 500);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-bench-session-store-'));

// BENCH_NODE: another node binary (Node 24); with BENCH_ROOT, symlinked packages resolve beside the copy.
const node = process.env.BENCH_NODE ?? process.execPath;
const flags = process.env.BENCH_NODE ? ['--preserve-symlinks', '--preserve-symlinks-main'] : [];
function run(task, arg) {
  const text = execFileSync(node, [...flags, 'worker.mjs', task, dir, String(arg)], { cwd: here, encoding: 'utf8' });
  return JSON.parse(text.trim().split('\n').at(-1));
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (value, digits = 1) => value.toFixed(digits);

try {
  const setup = run('setup', '');
  console.log(`pi ${process.env.BENCH_PI === '0.73' ? '@mariozechner 0.73.1' : '@earendil-works 1.6.0'}; load ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`);
  console.log(`node ${setup.node}; ${ENTRIES} entries; pi JSONL ${fmt(setup.piBytes / 2 ** 20)} MiB, xdog SQLite ${fmt(setup.xdogBytes / 2 ** 20)} MiB; ${rounds} rounds, fresh process per measurement, order alternating`);

  const xdog = [];
  const pi = [];
  const ratios = [];
  const warmRatios = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? ['pi', 'xdog'] : ['xdog', 'pi'];
    const result = {};
    for (const system of order) result[system] = system === 'xdog' ? run('open-xdog', setup.sessionId) : run('open-pi', setup.piFile);
    if (result.xdog.messages !== result.pi.messages) throw new Error(`context sizes differ: xdog ${result.xdog.messages}, pi ${result.pi.messages}`);
    xdog.push(result.xdog);
    pi.push(result.pi);
    ratios.push(result.pi.ms / result.xdog.ms);
    warmRatios.push(result.pi.warmMs / result.xdog.warmMs);
  }
  console.log(`open+context xdog median ${fmt(median(xdog.map((r) => r.ms)))} ms (min ${fmt(Math.min(...xdog.map((r) => r.ms)))}, max ${fmt(Math.max(...xdog.map((r) => r.ms)))}), ${xdog[0].messages} messages`);
  console.log(`open+context pi   median ${fmt(median(pi.map((r) => r.ms)))} ms (min ${fmt(Math.min(...pi.map((r) => r.ms)))}, max ${fmt(Math.max(...pi.map((r) => r.ms)))})`);
  console.log(`context again (already open) xdog median ${fmt(median(xdog.map((r) => r.warmMs)))} ms, pi median ${fmt(median(pi.map((r) => r.warmMs)))} ms`);
  console.log(`paired ratios pi/xdog: median ${fmt(median(ratios), 2)}, min ${fmt(Math.min(...ratios), 2)}, max ${fmt(Math.max(...ratios), 2)}`);
  console.log(`ratio open-context ${fmt(median(ratios), 2)}`);
  console.log(`ratio context-again ${fmt(median(warmRatios), 2)} (pi/xdog; min ${fmt(Math.min(...warmRatios), 2)}, max ${fmt(Math.max(...warmRatios), 2)})`);

  const xdogAppends = [];
  const rawAppends = [];
  for (let round = 0; round < 3; round++) {
    const order = round % 2 ? ['raw', 'xdog'] : ['xdog', 'raw'];
    for (const system of order) (system === 'xdog' ? xdogAppends : rawAppends).push(run(`appends-${system}`, appendCount).perSecond);
  }
  const appendRatio = median(xdogAppends.map((value, i) => value / rawAppends[i]));
  console.log(`durable appends/s (${appendCount} per run, one entry per transaction, synchronous=FULL): xdog median ${fmt(median(xdogAppends), 0)}, raw better-sqlite3 median ${fmt(median(rawAppends), 0)}`);
  console.log(`ratio appends ${fmt(appendRatio, 2)}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
