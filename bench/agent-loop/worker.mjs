/**
 * Runs one system on one workload in a fresh process (so peak RSS belongs to
 * that pair only) and prints one JSON line: best turns/s over the rounds,
 * the turn and event counts, and the process's peak RSS.
 */
import { performance } from 'node:perf_hooks';
import { WORKLOADS } from './workloads.mjs';

const [system, name, roundsArg] = process.argv.slice(2);
const workload = WORKLOADS[name];
if (!workload || !['xdog', 'pi'].includes(system)) {
  console.error('usage: worker.mjs <xdog|pi> <tool-turns|long-context> [rounds]');
  process.exit(2);
}
const { run } = await import(system === 'xdog' ? './xdog.mjs' : './pi.mjs');
const rounds = Number(roundsArg ?? 5);
let best = 0;
let last;
for (let round = 0; round < rounds; round++) {
  globalThis.gc?.();
  const started = performance.now();
  last = await run(workload);
  const seconds = (performance.now() - started) / 1000;
  if (last.turns !== workload.turns) throw new Error(`${system} ran ${last.turns} turns, expected ${workload.turns}`);
  best = Math.max(best, last.turns / seconds);
}
const peakRssMiB = process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify({ system, workload: name, turnsPerSecond: best, turns: last.turns, events: last.events, peakRssMiB }));
