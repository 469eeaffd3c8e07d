/**
 * The dashboard benchmark: the bytes the browser gets (dist/web, raw, gzip
 * and brotli) and the time to the first chat paint: from navigating a fresh
 * browser context to a login link until the chat shows the last message of
 * a 40-message session (login, hello, group list, status, session tree and
 * the event stream on the way). A real gateway process (../dist, faux model)
 * holds the session; the dashboard server runs in this process; Debian's
 * Chromium through playwright-core. Prints each round, the median and the
 * spread, and the load. Figures only; it never fails on timing.
 * Needs `npm run build` in the repository root (dist/ and dist/web/).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { median, spread } from '../stats.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dist = (file) => path.join(root, 'dist', file);
if (!fs.existsSync(dist('web/index.html')) || !fs.existsSync(dist('plugins/claw-web/index.js'))) {
  console.error('bench: ../dist or ../dist/web is missing; run `npm run build` in the repository root first');
  process.exit(2);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const PROMPTS = Number(process.env.BENCH_PROMPTS ?? 20);
const CHROMIUM = process.env.XDOG_CHROMIUM ?? '/usr/bin/chromium';

// 1. Bytes shipped.
let raw = 0;
let gzip = 0;
let brotli = 0;
console.log('file                               bytes    gzip  brotli');
for (const file of fs.readdirSync(dist('web'), { recursive: true, encoding: 'utf8' }).sort()) {
  const full = path.join(dist('web'), file);
  if (!fs.statSync(full).isFile()) continue;
  const body = fs.readFileSync(full);
  const sizes = [body.length, zlib.gzipSync(body, { level: 9 }).length, zlib.brotliCompressSync(body).length];
  [raw, gzip, brotli] = [raw + sizes[0], gzip + sizes[1], brotli + sizes[2]];
  console.log(`${file.padEnd(32)} ${String(sizes[0]).padStart(8)} ${String(sizes[1]).padStart(7)} ${String(sizes[2]).padStart(7)}`);
}
console.log(`${'total'.padEnd(32)} ${String(raw).padStart(8)} ${String(gzip).padStart(7)} ${String(brotli).padStart(7)}  (the server sends them uncompressed, from memory)`);

// 2. Time to first chat paint.
const require = createRequire(path.join(root, 'package.json'));
const { chromium } = require('playwright-core');
const { connectGateway, gatewayLocations } = await import(dist('plugins/claw-gateway/index.js'));
const { startWebServer } = await import(dist('plugins/claw-web/index.js'));
const { readToken } = await import(dist('core/rpc/index.js'));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-bench-web-'));
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
const gateway = spawn(process.execPath, [path.join(root, 'bin/run.js'), 'claw', 'gateway', 'run'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
await new Promise((resolve, reject) => {
  let log = '';
  gateway.stderr.setEncoding('utf8').on('data', (chunk) => {
    log += chunk;
    if (log.includes('gateway: ready:')) resolve();
  });
  gateway.once('exit', (code) => reject(new Error(`the gateway exited (${code}):\n${log}`)));
});
let web;
let browser;
try {
  const client = await connectGateway({ locations });
  await client.call('subscribe', {});
  for (let index = 0; index < PROMPTS; index++) {
    const ended = new Promise((resolve) => { const off = client.on('run.end', () => { off(); resolve(); }); });
    await client.call('prompt', { text: `prompt ${index}`, idempotencyKey: `bench-${index}` });
    await ended;
  }
  await client.close();
  web = await startWebServer({ port: 0, connect: () => connectGateway({ locations, client: 'bench-web' }), gatewayToken: () => readToken(locations.token) });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  const times = [];
  const paints = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const fetched = [];
    page.on('response', (response) => { if (!new URL(response.url()).pathname.startsWith('/api/')) fetched.push(response.body().then((body) => body.length, () => 0)); });
    const link = web.loginLink();
    const started = performance.now();
    await page.goto(link);
    await page.locator('.msg', { hasText: `echo: prompt ${PROMPTS - 1}` }).waitFor({ timeout: 60_000 });
    const elapsed = performance.now() - started;
    const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null);
    const pageBytes = (await Promise.all(fetched)).reduce((total, bytes) => total + bytes, 0);
    await context.close();
    if (round === 0) {
      console.log(`the chat page fetches ${fetched.length} files, ${pageBytes} bytes (the usage page's chart loads only when it is opened)`);
      continue;
    } // warm-up: Chromium's first page pays for its own start
    times.push(elapsed);
    if (fcp !== null) paints.push(fcp);
    console.log(`round ${round}: first chat paint with ${PROMPTS * 2} messages ${elapsed.toFixed(0)} ms (first contentful paint ${fcp?.toFixed(0) ?? '?'} ms)`);
  }
  const s = spread(times);
  console.log(`first chat paint: median ${median(times).toFixed(0)} ms (min ${s.min.toFixed(0)}, max ${s.max.toFixed(0)}) over ${ROUNDS} rounds; first contentful paint median ${paints.length ? median(paints).toFixed(0) : '?'} ms`);
  console.log(`load: ${os.loadavg().map((value) => value.toFixed(2)).join(' ')} on ${os.cpus().length} cores`);
} finally {
  await browser?.close();
  await web?.close();
  gateway.kill('SIGTERM');
  await new Promise((resolve) => gateway.once('exit', resolve));
  fs.rmSync(dir, { recursive: true, force: true });
}
