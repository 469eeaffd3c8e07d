/**
 * The CLI start benchmark: the wall time of one-shot commands, each a fresh
 * process, offline, in an empty working directory with private config and
 * data folders. A round runs `pi -p hi` (answered by the one-reply provider
 * of one-reply.mjs) and each xdog command once, the order rotating from
 * round to round; each xdog command gets one paired ratio per round
 * (xdog time ÷ pi time, lower is faster). Prints the median paired ratio
 * with its spread and `ratio <command> <median>`. Figures only. Needs the
 * compiled package (`npx tsc -p tsconfig.build.json` in the repository
 * root). BENCH_ROUNDS (default 9).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median, spread } from '../stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = path.resolve(here, '../..');
if (!existsSync(path.join(repo, 'dist/core/index.js'))) {
  console.error('bench: ../dist is missing; run `npx tsc -p tsconfig.build.json` in the repository root first');
  process.exit(2);
}
const rounds = Number(process.env.BENCH_ROUNDS ?? 9);
const REPLY = 'Hello from the bench.';
const home = mkdtempSync(path.join(os.tmpdir(), 'xdog-cli-start-'));
const cwd = path.join(home, 'work');
const env = {
  ...process.env,
  HOME: home,
  XDG_CONFIG_HOME: path.join(home, 'config'),
  XDG_DATA_HOME: path.join(home, 'data'),
  XDG_CACHE_HOME: path.join(home, 'cache'),
  XDOG_FAUX_SCRIPT: path.join(here, 'reply.json'),
  PI_CODING_AGENT_DIR: path.join(home, 'pi'),
  PI_OFFLINE: '1',
};
spawnSync('mkdir', ['-p', cwd]);

const xdog = path.join(repo, 'bin/run.js');
const pi = path.join(here, '../node_modules/@mariozechner/pi-coding-agent/dist/cli.js');
const COMMANDS = {
  'pi -p hi': { id: 'pi', argv: [pi, '--offline', '-e', path.join(here, 'one-reply.mjs'), '--model', 'bench/one', '-p', 'hi'], expect: REPLY },
  'xdog agent chat faux/demo hi': { id: 'agent-chat', argv: [xdog, 'agent', 'chat', 'faux/demo', 'hi'], expect: REPLY },
  'xdog flow validate': { id: 'flow-validate', argv: [xdog, 'flow', 'validate', path.join(repo, 'docs/examples/flows/topic-digest.yaml')] },
  'xdog mcp list': { id: 'mcp-list', argv: [xdog, 'mcp', 'list'] },
};

function time(name) {
  const { argv, expect } = COMMANDS[name];
  const started = performance.now();
  const result = spawnSync(process.execPath, argv, { cwd, env, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (result.status !== 0 || (expect && !result.stdout.includes(expect))) {
    throw new Error(`${name} failed (exit ${result.status}): ${result.stdout}${result.stderr}`);
  }
  return ms;
}

const names = Object.keys(COMMANDS);
const times = Object.fromEntries(names.map((name) => [name, []]));
const ratios = Object.fromEntries(names.slice(1).map((name) => [name, []]));
try {
  for (const name of names) time(name); // one untimed run each: first-run disk caches, pi's agent folder
  for (let round = 0; round < rounds; round++) {
    const order = names.map((_, index) => names[(index + round) % names.length]);
    const took = {};
    for (const name of order) took[name] = time(name);
    for (const name of names) times[name].push(took[name]);
    for (const name of names.slice(1)) ratios[name].push(took[name] / took['pi -p hi']);
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}

console.log(`node ${process.version}, ${rounds} rounds, each command a fresh process per round, order rotating`);
for (const name of names) console.log(`${name.padEnd(30)} median ${median(times[name]).toFixed(0).padStart(5)} ms  (min ${Math.min(...times[name]).toFixed(0)}, max ${Math.max(...times[name]).toFixed(0)})`);
for (const name of names.slice(1)) {
  const { min, max } = spread(ratios[name]);
  console.log(`${name} ÷ pi -p hi, paired: ${ratios[name].map((r) => r.toFixed(2)).join(' ')}  (min ${min.toFixed(2)}, max ${max.toFixed(2)})`);
}
for (const name of names.slice(1)) console.log(`ratio ${COMMANDS[name].id} ${median(ratios[name]).toFixed(2)}`);
