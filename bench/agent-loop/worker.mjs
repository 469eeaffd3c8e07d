/**
 * Measures one system on one workload in a fresh process and prints one
 * JSON line: turns/s over the timed runs (BENCH_RUNS, default 5, after
 * BENCH_WARMUPS, default 2, so both systems are measured with their code
 * compiled; only the prompts are timed, not building the agent), the turn
 * and event counts of one run, and the process's peak RSS.
 */
import { WORKLOADS } from './workloads.mjs';

const [system, name] = process.argv.slice(2);
const workload = WORKLOADS[name];
if (!workload || !['xdog', 'pi'].includes(system)) {
  console.error(`usage: worker.mjs <xdog|pi> <${Object.keys(WORKLOADS).join('|')}>`);
  process.exit(2);
}
const warmups = Number(process.env.BENCH_WARMUPS ?? 2);
const timed = Number(process.env.BENCH_RUNS ?? 5);
const { run } = await import(system === 'xdog' ? './xdog.mjs' : './pi.mjs');

async function once() {
  const result = await run(workload);
  if (result.turns !== workload.turns) throw new Error(`${system} ran ${result.turns} turns, expected ${workload.turns}`);
  return result;
}

for (let index = 0; index < warmups; index++) await once();
globalThis.gc?.();
let turns = 0;
let seconds = 0;
let last;
for (let index = 0; index < timed; index++) {
  last = await once();
  turns += last.turns;
  seconds += last.seconds;
}
const peakRssMiB = process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify({ system, workload: name, turnsPerSecond: turns / seconds, turns: last.turns, events: last.events, peakRssMiB }));
