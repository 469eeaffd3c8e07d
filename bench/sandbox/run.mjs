/**
 * The cost of the OS sandbox: wall time of one bash tool call (`true`) run
 * bare and under `workspace-write` with the network off (bubblewrap, the
 * seccomp filter, the pids limit), from the built tool. Figures, not a test:
 * prints the median and spread of BENCH_CALLS calls per side, interleaved so
 * machine load hits both alike, the added median latency (goal <= 20 ms), and
 * the load average it ran under.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createBashTool } from '../../dist/plugins/tools/index.js';
import { probeSandbox, resolvePolicy } from '../../dist/plugins/sandbox/index.js';
import { median, spread } from '../stats.mjs';

const CALLS = Number(process.env.BENCH_CALLS ?? 60);
const WARMUPS = Number(process.env.BENCH_WARMUPS ?? 5);
const COMMAND = process.env.BENCH_COMMAND ?? 'true';

const probe = await probeSandbox();
if (probe.missing.length) {
  console.error(`the sandbox cannot run here: ${probe.missing.join('; ')}`);
  process.exit(1);
}
const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-bench-sandbox-'));
const bare = createBashTool({ cwd });
const boxed = createBashTool({ cwd, sandbox: resolvePolicy({ mode: 'workspace-write', network: 'off' }, cwd) });
const signal = new AbortController().signal;

async function once(tool) {
  const start = performance.now();
  const result = await tool.execute({ command: COMMAND }, { signal, toolCallId: 'bench' });
  const ms = performance.now() - start;
  if (result.isError) throw new Error(`bench call failed: ${JSON.stringify(result.content)}`);
  return ms;
}

for (let index = 0; index < WARMUPS; index++) {
  await once(bare);
  await once(boxed);
}
const times = { bare: [], boxed: [] };
const loadBefore = os.loadavg();
for (let index = 0; index < CALLS; index++) {
  times.bare.push(await once(bare));
  times.boxed.push(await once(boxed));
}
const loadAfter = os.loadavg();
fs.rmSync(cwd, { recursive: true, force: true });

const row = (name, values) => {
  const { min, max } = spread(values);
  return `${name.padEnd(26)} median ${median(values).toFixed(1).padStart(6)} ms   min ${min.toFixed(1).padStart(6)}   max ${max.toFixed(1).padStart(6)}`;
};
console.log(`bash "${COMMAND}", ${CALLS} calls per side, Node ${process.version}, ${os.cpus().length} CPUs, pids limit via ${probe.pids}`);
console.log(row('bare', times.bare));
console.log(row('workspace-write, net off', times.boxed));
// Paired: each sandboxed call against the bare call made just before it, so load swings hit both sides of a pair.
const added = times.boxed.map((ms, index) => ms - times.bare[index]);
console.log(row('added per pair', added));
console.log(`added latency, median of ${CALLS} paired differences: ${median(added).toFixed(1)} ms (goal <= 20 ms)`);
console.log(`load average: ${loadBefore.map((value) => value.toFixed(2)).join(' ')} before, ${loadAfter.map((value) => value.toFixed(2)).join(' ')} after`);
