/**
 * The agent loop of this checkout ("after") against another checkout's
 * ("before", the dist folder BENCH_BEFORE_DIST names), on the same workloads
 * and the same lean stream: did a change cost the loop anything?
 * (BENCH_AFTER_DIST puts another dist on the "after" side.) A round
 * runs each side once, each in a fresh process (worker.mjs, the same
 * warm-ups and timed runs as run.mjs), the order alternating per round; each
 * round gives one paired ratio, after ÷ before turns per CPU-second. Prints
 * the median ratio with its spread (min–max), the medians of each side and
 * the load, and `ratio <workload> <median>`. Figures only.
 * Needs both dists built (`npx tsc -p tsconfig.build.json` in each checkout).
 * BENCH_ROUNDS (default 7), BENCH_WORKLOADS (default lean,long-context). The
 * Node that runs this script runs both sides.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, spread } from '../stats.mjs';
import { WORKLOADS } from './workloads.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const dists = { after: path.resolve(process.env.BENCH_AFTER_DIST ?? path.join(here, '../../dist')), before: process.env.BENCH_BEFORE_DIST && path.resolve(process.env.BENCH_BEFORE_DIST) };
for (const [side, dist] of Object.entries(dists)) {
  if (!dist || !existsSync(path.join(dist, 'core/agent/index.js'))) {
    console.error(`bench: the ${side} dist is missing${side === 'before' ? ' (set BENCH_BEFORE_DIST to a checkout\'s built dist folder)' : '; run `npx tsc -p tsconfig.build.json` in the repository root'}`);
    process.exit(2);
  }
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
const selected = (process.env.BENCH_WORKLOADS ?? 'lean,long-context').split(',');
const load = () => os.loadavg().map((value) => value.toFixed(1)).join(' ');

function measure(side, workload) {
  const out = execFileSync(process.execPath, ['--expose-gc', 'worker.mjs', 'xdog', workload], { cwd: here, encoding: 'utf8', env: { ...process.env, BENCH_XDOG_DIST: dists[side] } });
  return JSON.parse(out.trim().split('\n').at(-1));
}

console.log(`node ${process.version}, after (${dists.after}) against before (${dists.before}), ${rounds} alternating rounds per workload, fresh processes; load ${load()}`);
for (const workload of selected) {
  if (!WORKLOADS[workload]) throw new Error(`unknown workload ${workload}`);
  const results = { after: [], before: [] };
  const ratios = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['after', 'before'] : ['before', 'after'];
    const got = Object.fromEntries(order.map((side) => [side, measure(side, workload)]));
    results.after.push(got.after);
    results.before.push(got.before);
    ratios.push(got.after.turnsPerCpuSecond / got.before.turnsPerCpuSecond);
  }
  for (const side of ['after', 'before']) {
    const list = results[side];
    console.log(`${workload} ${side.padEnd(6)} turns per CPU-second median ${Math.round(median(list.map((r) => r.turnsPerCpuSecond)))}, peak RSS median ${median(list.map((r) => r.peakRssMiB)).toFixed(1)} MiB`);
  }
  const { min, max } = spread(ratios);
  console.log(`${workload} paired ratios after/before: ${ratios.map((r) => r.toFixed(2)).join(' ')}`);
  console.log(`ratio ${workload} ${median(ratios).toFixed(2)} (${min.toFixed(2)}–${max.toFixed(2)}); load ${load()}`);
}
