/**
 * CLI start of this checkout ("after") against another checkout ("before",
 * the repository BENCH_BEFORE_REPO names, built): did a change cost the start
 * anything? The commands are `xdog agent chat faux/demo hi`, `xdog --help` and
 * `xdog claw send hi` (both sides' clients talk to one gateway of the after
 * side, under GATEWAY_NODE, default /usr/bin/node), in the sandbox run.mjs
 * uses (no `telemetry:` section in its config). A round
 * runs each command once per side, each a fresh process, the side order
 * alternating per round; each round gives one paired ratio per command,
 * after ÷ before (wall and CPU; lower is faster). Prints every paired ratio,
 * the medians with their spread, the load, and `ratio <command> wall <median>
 * cpu <median>`. BENCH_AFTER_REPO puts another checkout on the "after" side.
 * Both sides run under the Node that runs this script. BENCH_ROUNDS (default 15).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, spread } from '../stats.mjs';
import { REPLY, makeSandbox } from './sandbox.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const repos = { after: path.resolve(process.env.BENCH_AFTER_REPO ?? path.join(here, '../..')), before: process.env.BENCH_BEFORE_REPO && path.resolve(process.env.BENCH_BEFORE_REPO) };
for (const [side, repo] of Object.entries(repos)) {
  if (!repo || !existsSync(path.join(repo, 'dist/core/index.js'))) {
    console.error(`bench: the ${side} checkout is missing or not built${side === 'before' ? ' (set BENCH_BEFORE_REPO to a checkout built with npx tsc -p tsconfig.build.json)' : '; run `npx tsc -p tsconfig.build.json` in it'}`);
    process.exit(2);
  }
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const COMMANDS = {
  'agent chat faux/demo hi': { args: ['agent', 'chat', 'faux/demo', 'hi'], expect: REPLY },
  '--help': { args: ['--help'] },
  'claw send hi': { args: ['claw', 'send', 'hi'], expect: REPLY },
};
const sandbox = makeSandbox('model: faux/demo\nclaw:\n  groups:\n    main:\n      workspace: $WORK\n      model: faux/demo\n');
const gatewayNode = process.env.GATEWAY_NODE ?? '/usr/bin/node';
const gateway = (...args) => sandbox.gateway(gatewayNode, path.join(repos.after, 'bin/run.js'), ...args);
const run = (side, name) => sandbox.time(`${side} xdog ${name}`, [process.execPath, path.join(repos[side], 'bin/run.js'), ...COMMANDS[name].args], COMMANDS[name].expect);

const names = Object.keys(COMMANDS);
const samples = Object.fromEntries(names.map((name) => [name, { after: [], before: [] }]));
const ratios = Object.fromEntries(names.map((name) => [name, { wall: [], cpu: [] }]));
const loads = [];
gateway('start', '--timeout', '120');
try {
  for (const name of names) for (const side of ['after', 'before']) run(side, name); // untimed: disk caches, discovery caches, compile caches
  for (let round = 0; round < rounds; round++) {
    loads.push(os.loadavg()[0]);
    const order = round % 2 === 0 ? ['after', 'before'] : ['before', 'after'];
    for (const name of names) {
      const took = Object.fromEntries(order.map((side) => [side, run(side, name)]));
      samples[name].after.push(took.after);
      samples[name].before.push(took.before);
      ratios[name].wall.push(took.after.wall / took.before.wall);
      ratios[name].cpu.push(took.after.cpu / took.before.cpu);
    }
  }
} finally {
  gateway('stop');
  sandbox.remove();
}

console.log(`node ${process.version}; after ${repos.after}, before ${repos.before}; ${rounds} rounds, fresh processes, side order alternating; load (1 min) median ${median(loads).toFixed(1)} (min ${Math.min(...loads).toFixed(1)}, max ${Math.max(...loads).toFixed(1)})`);
const ms = (list) => `${median(list).toFixed(0)} ms`;
for (const name of names) {
  for (const side of ['after', 'before']) console.log(`xdog ${name} ${side.padEnd(6)} wall ${ms(samples[name][side].map((s) => s.wall))}, CPU ${ms(samples[name][side].map((s) => s.cpu))}`);
  for (const kind of ['wall', 'cpu']) {
    const list = ratios[name][kind];
    const { min, max } = spread(list);
    console.log(`xdog ${name} after/before paired ${kind}: ${list.map((r) => r.toFixed(2)).join(' ')}  (median ${median(list).toFixed(2)}, min ${min.toFixed(2)}, max ${max.toFixed(2)})`);
  }
}
for (const name of names) console.log(`ratio ${name} wall ${median(ratios[name].wall).toFixed(2)} cpu ${median(ratios[name].cpu).toFixed(2)}`);
