/**
 * Measures one system on one workload in a fresh process and prints one
 * JSON line: the median turns per second of wall time and per second of
 * CPU time (all threads of the process: JIT and GC helpers count) of the timed runs (BENCH_RUNS, default 9,
 * after BENCH_WARMUPS, default 3, so both systems are measured with their
 * code compiled; only the prompts are timed, not building the agent; the
 * median, so a burst of load during one run does not decide), the turn and
 * event counts of one run, and the process's peak RSS.
 */
import { median } from '../stats.mjs';
import { WORKLOADS } from './workloads.mjs';

const [system, name] = process.argv.slice(2);
const workload = WORKLOADS[name];
const SYSTEMS = { xdog: './xdog.mjs', pi: './pi.mjs', 'pi-0.73': './pi-0.73.mjs' };
if (!workload || !SYSTEMS[system]) {
  console.error(`usage: worker.mjs <${Object.keys(SYSTEMS).join('|')}> <${Object.keys(WORKLOADS).join('|')}>`);
  process.exit(2);
}
const warmups = Number(process.env.BENCH_WARMUPS ?? 3);
const timed = Number(process.env.BENCH_RUNS ?? 9);
const { run } = await import(SYSTEMS[system]);

async function once() {
  const result = await run(workload);
  if (result.turns !== workload.turns) throw new Error(`${system} ran ${result.turns} turns, expected ${workload.turns}`);
  return result;
}

for (let index = 0; index < warmups; index++) await once();
globalThis.gc?.();
const rates = [];
const cpuRates = [];
let last;
for (let index = 0; index < timed; index++) {
  last = await once();
  rates.push(last.turns / last.seconds);
  cpuRates.push(last.turns / last.cpuSeconds);
}
const peakRssMiB = process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify({ system, workload: name, turnsPerSecond: median(rates), turnsPerCpuSecond: median(cpuRates), turns: last.turns, events: last.events, peakRssMiB }));
