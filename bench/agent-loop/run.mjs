/**
 * The agent-loop benchmark. For each workload it runs rounds; a round runs
 * xdog and pi-agent-core once each, each in a fresh process, the order
 * alternating from round to round so neither side always gets the quieter
 * moment. Each round gives one paired ratio (xdog turns ÷ pi turns per
 * second of CPU time, which other work on a shared machine does not
 * inflate; the wall-time ratio is printed beside it); the bench prints the
 * median ratio with its spread (min–max over rounds), the median rates and
 * peak RSS of each side, and `ratio <workload> <median CPU-time ratio>`. Figures only: it never fails on timing.
 * Needs the compiled package (`npx tsc -p tsconfig.build.json` in the
 * repository root). BENCH_ROUNDS (default 7), BENCH_WORKLOADS (comma list),
 * BENCH_PI (1.6, the default: @earendil-works/pi-agent-core 1.6.0; 0.73:
 * @mariozechner/pi-agent-core 0.73.1, for the history rows). The Node that
 * runs this script runs both sides: start it with Node 24 to measure there.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { median, spread } from '../stats.mjs';
import { WORKLOADS } from './workloads.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
if (!existsSync(new URL('../../dist/core/index.js', import.meta.url))) {
  console.error('bench: ../dist is missing; run `npx tsc -p tsconfig.build.json` in the repository root first');
  process.exit(2);
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
const peer = { '1.6': 'pi', '0.73': 'pi-0.73' }[process.env.BENCH_PI ?? '1.6'];
if (!peer) throw new Error(`BENCH_PI is ${process.env.BENCH_PI}: use 1.6 or 0.73`);
const selected = process.env.BENCH_WORKLOADS ? process.env.BENCH_WORKLOADS.split(',') : Object.keys(WORKLOADS);

function measure(system, workload) {
  const out = execFileSync(process.execPath, ['--expose-gc', 'worker.mjs', system, workload], { cwd: here, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1));
}

const fmt = (value, digits = 0) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

console.log(`node ${process.version}, xdog against ${peer === 'pi' ? '@earendil-works/pi-agent-core 1.6.0' : '@mariozechner/pi-agent-core 0.73.1'}, ${rounds} alternating rounds per workload, each system in a fresh process per round; load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
for (const workload of selected) {
  if (!WORKLOADS[workload]) throw new Error(`unknown workload ${workload}`);
  const ratios = [];
  const wallRatios = [];
  const xdog = [];
  const pi = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['xdog', peer] : [peer, 'xdog'];
    const results = Object.fromEntries(order.map((system) => [system === peer ? 'pi' : system, measure(system, workload)]));
    xdog.push(results.xdog);
    pi.push(results.pi);
    ratios.push(results.xdog.turnsPerCpuSecond / results.pi.turnsPerCpuSecond);
    wallRatios.push(results.xdog.turnsPerSecond / results.pi.turnsPerSecond);
  }
  const label = `${workload} (${WORKLOADS[workload].stream} stream)`;
  for (const [system, list] of [['xdog', xdog], ['pi', pi]]) {
    console.log(
      `${label} ${system.padEnd(4)} turns per CPU-second median ${fmt(median(list.map((r) => r.turnsPerCpuSecond))).padStart(7)}, per wall-second ${fmt(median(list.map((r) => r.turnsPerSecond))).padStart(7)}  peak RSS median ${fmt(median(list.map((r) => r.peakRssMiB)), 1)} MiB  (${list[0].turns} turns, ${list[0].events} events a run)`,
    );
  }
  const { min, max } = spread(ratios);
  console.log(`${label} paired ratios (CPU time): ${ratios.map((r) => r.toFixed(2)).join(' ')}  (min ${min.toFixed(2)}, max ${max.toFixed(2)})`);
  const wall = spread(wallRatios);
  console.log(`${label} paired ratios (wall time): ${wallRatios.map((r) => r.toFixed(2)).join(' ')}  (min ${wall.min.toFixed(2)}, max ${wall.max.toFixed(2)}, median ${median(wallRatios).toFixed(2)})`);
  console.log(`ratio ${workload} ${median(ratios).toFixed(2)}  (load ${os.loadavg()[0].toFixed(1)})`);
}
