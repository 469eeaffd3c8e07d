/**
 * The agent-loop benchmark: runs each workload on xdog and on pi-agent-core
 * (each pair in its own process), then prints turns/s, peak RSS and
 * `ratio <workload> <xdog turns/s ÷ pi turns/s>`. Figures only; it never
 * fails on timing. Needs the compiled package: `npx tsc -p tsconfig.build.json`
 * in the repository root.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WORKLOADS } from './workloads.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
if (!existsSync(new URL('../../dist/core/index.js', import.meta.url))) {
  console.error('bench: ../dist is missing; run `npx tsc -p tsconfig.build.json` in the repository root first');
  process.exit(2);
}
const rounds = process.env.BENCH_ROUNDS ?? '5';

function measure(system, workload) {
  const out = execFileSync(process.execPath, ['--expose-gc', 'worker.mjs', system, workload, rounds], { cwd: here, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1));
}

console.log(`node ${process.version}, best of ${rounds} rounds per system and workload`);
for (const workload of Object.keys(WORKLOADS)) {
  const xdog = measure('xdog', workload);
  const pi = measure('pi', workload);
  for (const result of [xdog, pi]) {
    console.log(`${workload} ${result.system.padEnd(4)} turns/s ${result.turnsPerSecond.toFixed(1).padStart(9)}  peak RSS ${result.peakRssMiB.toFixed(1)} MiB  (${result.turns} turns, ${result.events} events)`);
  }
  console.log(`ratio ${workload} ${(xdog.turnsPerSecond / pi.turnsPerSecond).toFixed(2)}`);
}
