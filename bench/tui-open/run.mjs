/**
 * The TUI-open benchmark: how long `xdog claw tui` takes to show a
 * 2,000-message session, from constructing the client to the frame that
 * holds the last message. A real gateway process (../dist, faux model) holds
 * the session; the client connects, reads the transcript in chunks, builds
 * the chat and renders it to a virtual terminal of 120x40 (the bytes a real
 * terminal would get). Prints each round and the median. Figures only; it
 * never fails on timing. Needs ../dist (`npx tsc -p tsconfig.build.json`).
 *
 * pi's TUI is not measured here: its interactive mode needs its own session
 * format and a real terminal, so the figure is compared with the issue's
 * absolute bound (300 ms on the development machine).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { median, spread } from '../stats.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = (file) => path.join(root, 'dist', file);
if (!fs.existsSync(dist('plugins/claw-tui/index.js'))) {
  console.error('bench: ../dist is missing; run `npx tsc -p tsconfig.build.json` in the repository root first');
  process.exit(2);
}
const { connectGateway, gatewayLocations } = await import(dist('plugins/claw-gateway/index.js'));
const { ClawTui } = await import(dist('plugins/claw-tui/index.js'));

const PROMPTS = Number(process.env.BENCH_PROMPTS ?? 1000); // two messages each
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-bench-tui-'));
fs.mkdirSync(path.join(dir, 'ws'));
fs.writeFileSync(path.join(dir, 'config.yaml'), `claw:\n  groups:\n    main:\n      workspace: ${path.join(dir, 'ws')}\n      model: faux/demo\n      enabled_tools: []\n`);
const env = {
  ...process.env,
  XDOG_CONFIG: path.join(dir, 'config.yaml'),
  XDG_RUNTIME_DIR: path.join(dir, 'run'),
  XDG_STATE_HOME: path.join(dir, 'state'),
  XDG_DATA_HOME: path.join(dir, 'data'),
  XDG_CONFIG_HOME: path.join(dir, 'config'),
  XDOG_FAUX_SCRIPT: path.join(root, 'test/fixtures/claw/faux-model.mjs'),
  OCLIF_SKIP_NEW_VERSION_CHECK: '1',
};
const locations = gatewayLocations(env);

/** A terminal that keeps what it is sent, so the bench can see the frame with the last message. */
class VirtualTerminal {
  output = '';
  /** Resolves when `marker` has been written (checked as the bytes arrive, so waiting costs no polling). */
  constructor(marker) {
    this.marker = marker;
    this.shown = new Promise((resolve) => (this.onShown = resolve));
  }
  start() {}
  stop() {}
  async drainInput() {}
  write(data) {
    const from = Math.max(0, this.output.length - this.marker.length);
    this.output += data;
    if (this.output.indexOf(this.marker, from) >= 0) this.onShown(performance.now());
  }
  get columns() {
    return 120;
  }
  get rows() {
    return 40;
  }
  get kittyProtocolActive() {
    return false;
  }
  moveBy() {}
  hideCursor() {}
  showCursor() {}
  clearLine() {}
  clearFromCursor() {}
  clearScreen() {}
  setTitle() {}
  setProgress() {}
}

const gateway = spawn(process.execPath, [path.join(root, 'bin/run.js'), 'claw', 'gateway', 'run'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
try {
  await new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`the gateway did not start:\n${log}`)), 30_000);
    gateway.stderr.setEncoding('utf8').on('data', (chunk) => {
      log += chunk;
      if (log.includes('gateway: ready:')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });

  // Seed: PROMPTS prompts, each answered by the faux model (a user and an assistant message).
  const seeder = await connectGateway({ client: 'bench', locations });
  await seeder.call('subscribe', {});
  const seedStart = performance.now();
  for (let i = 0; i < PROMPTS; i++) {
    const ended = new Promise((resolve) => {
      const off = seeder.on('run.end', () => {
        off();
        resolve();
      });
    });
    await seeder.call('prompt', { text: `m${i}`, idempotencyKey: `seed-${i}` });
    await ended;
  }
  await seeder.close();
  console.log(`node ${process.version}; seeded ${PROMPTS * 2} messages in ${((performance.now() - seedStart) / 1000).toFixed(1)} s; ${ROUNDS} rounds`);

  const marker = `echo: m${PROMPTS - 1}`;
  const times = [];
  const reads = [];
  for (let round = 0; round < ROUNDS; round++) {
    // The share of the gateway: reading the whole transcript over the protocol, as the TUI does on open.
    const reader = await connectGateway({ client: 'bench', locations });
    const readStart = performance.now();
    for (let offset = 0, until; ; ) {
      const chunk = await reader.call('transcript.read', { offset, untilEntryId: until });
      offset = chunk.nextOffset;
      until = chunk.untilEntryId;
      if (chunk.done) break;
    }
    reads.push(performance.now() - readStart);
    await reader.close();

    const terminal = new VirtualTerminal(marker);
    const start = performance.now();
    const tui = new ClawTui({ connect: () => connectGateway({ client: 'bench', locations }), keybindingsFile: path.join(dir, 'none.json'), terminal });
    const running = tui.run();
    const ms = (await terminal.shown) - start;
    times.push(ms);
    console.log(`round ${round + 1}: ${ms.toFixed(1)} ms to the frame with message ${PROMPTS * 2} (the transcript read alone: ${reads.at(-1).toFixed(1)} ms); ${(terminal.output.length / 1024).toFixed(0)} KiB written`);
    await tui.quit();
    await running;
  }
  const { min, max } = spread(times);
  console.log(`open ${PROMPTS * 2} messages: median ${median(times).toFixed(1)} ms (min ${min.toFixed(1)}, max ${max.toFixed(1)}); of which the transcript read: median ${median(reads).toFixed(1)} ms; bound 300 ms`);
} finally {
  gateway.kill('SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
