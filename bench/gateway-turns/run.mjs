/**
 * The gateway-turns benchmark: per-prompt CPU time and event-loop blocking of
 * a claw session at 200, 2,000 and 20,000 stored messages, for this checkout
 * ("after"), the same with a pass-through context tap ("after+tap"), and the
 * checkout BENCH_BEFORE names ("before", default ../../main when present), in
 * fresh processes, the order alternating per round. Then gateway RSS over
 * 1,000 prompts. Prints medians, the paired ratios before/after with their
 * spread, and `ratio cpu-<size> <before / after>`. Figures only.
 * Needs ../dist (`npx tsc -p tsconfig.build.json`).
 * BENCH_NODE runs the workers on another node binary (with BENCH_ROOT_AFTER /
 * BENCH_ROOT_BEFORE pointing at copies whose node_modules carry a
 * better-sqlite3 built for it, see README).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const node = process.env.BENCH_NODE ?? process.execPath;
const roots = { after: process.env.BENCH_ROOT_AFTER ?? path.resolve(here, '../..'), before: process.env.BENCH_ROOT_BEFORE ?? process.env.BENCH_BEFORE };
const sizes = (process.env.BENCH_SIZES ?? '200,2000,20000').split(',').map(Number);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-bench-gateway-turns-'));
const nodeFlags = process.env.BENCH_NODE ? ['--preserve-symlinks', '--preserve-symlinks-main'] : [];

function run(root, size, mode, tap) {
  const text = execFileSync(node, [...nodeFlags, '--expose-gc', 'worker.mjs', root, dir, String(size), mode, ...(tap ? ['tap'] : [])], { cwd: here, encoding: 'utf8', env: { ...process.env, BENCH_PROMPTS: process.env.BENCH_PROMPTS ?? '10' } });
  return JSON.parse(text.trim().split('\n').at(-1));
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const f = (value, digits = 1) => value.toFixed(digits);

try {
  const systems = ['after', 'after+tap', ...(roots.before ? ['before'] : [])];
  console.log(`node ${run(roots.after, 0, 'turns').node}; ${rounds} rounds; systems ${systems.join(', ')}; load ${os.loadavg().map((v) => f(v, 2)).join(' ')}`);
  for (const size of sizes) {
    const results = Object.fromEntries(systems.map((s) => [s, []]));
    const ratios = [];
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? [...systems].reverse() : systems;
      const got = {};
      for (const system of order) got[system] = run(system === 'before' ? roots.before : roots.after, size, 'turns', system === 'after+tap');
      for (const system of systems) results[system].push(got[system]);
      if (got.before) ratios.push(got.before.cpuMsPerPrompt / got.after.cpuMsPerPrompt);
    }
    const line = systems.map((s) => `${s} ${f(median(results[s].map((r) => r.cpuMsPerPrompt)), 2)} ms CPU, block ${f(median(results[s].map((r) => r.blockMs)))} ms`).join('; ');
    console.log(`${size} messages: ${line}`);
    if (ratios.length) console.log(`ratio cpu-${size} ${f(median(ratios), 2)} (min ${f(Math.min(...ratios), 2)}, max ${f(Math.max(...ratios), 2)})`);
  }
  const rss = run(roots.after, 2000, 'rss');
  const first = rss.rssMiB[0];
  const last = rss.rssMiB.at(-1);
  console.log(`rss over 1000 prompts (2000 seeded, after GC every 100): ${rss.rssMiB.map((v) => f(v)).join(' ')} MiB; last/first ${f(last / first, 3)}`);
  console.log(`load ${os.loadavg().map((v) => f(v, 2)).join(' ')}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
