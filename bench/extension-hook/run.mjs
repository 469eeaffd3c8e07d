/**
 * The cost of an extension `beforeToolCall` round trip: tool calls per second
 * through a kernel-built agent on a lean scripted model, with no extension and
 * with one enabled extension whose beforeToolCall allows every call (so each
 * call crosses the private JSON-RPC channel to its worker process and back).
 * Figures, not a test: prints the median calls/s of BENCH_RUNS runs per side.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ContainerModule, createKernel, findExtension } from '../../dist/core/index.js';
import extensionsPlugin, { ExtensionHost, ExtensionHostToken } from '../../dist/plugins/extensions/index.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const WARMUPS = Number(process.env.BENCH_WARMUPS ?? 2);

const noop = { name: 'noop', description: 'does nothing', parameters: { type: 'object', properties: {}, additionalProperties: false }, execute: async () => ({ content: [{ type: 'text', text: 'ok' }] }) };

/** A lean model stream: CALLS consecutive turns each calling noop, then an answer. */
function leanStream() {
  let turn = 0;
  return async function* (model) {
    const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    const message = { role: 'assistant', content: [], model, usage, stopReason: 'stop', timestamp: Date.now() };
    if (turn++ % (CALLS + 1) < CALLS) {
      message.content.push({ type: 'toolCall', id: `c${turn}`, name: 'noop', arguments: {} });
      message.stopReason = 'toolUse';
    } else {
      message.content.push({ type: 'text', text: 'done' });
    }
    yield { type: 'start', partial: message };
    yield { type: 'done', message };
  };
}

async function side(withExtension) {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'xdog-bench-ext-'));
  const ids = withExtension ? ['bench-allow'] : [];
  if (withExtension) {
    const dir = path.join(project, 'node_modules', 'bench-allow');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'bench-allow', version: '1.0.0', type: 'module', xdog: { extension: './index.js' } }));
    fs.writeFileSync(path.join(dir, 'index.js'), 'export default (api) => api.beforeToolCall(() => undefined);\n');
  }
  const host = new ContainerModule(({ rebind }) => {
    rebind(ExtensionHostToken).toConstantValue(new ExtensionHost({ ids, settings: {}, cwd: project, locate: (id) => findExtension(id, { cwd: project }) }));
  });
  const kernel = await createKernel({ plugins: [extensionsPlugin], config: { extensions: ids }, cwd: project, overrides: [host] });
  await kernel.open();
  const rates = [];
  for (let i = 0; i < WARMUPS + RUNS; i++) {
    const agent = kernel.createAgent(leanStream(), { model: 'bench/lean' }, { tools: [noop] });
    const started = performance.now();
    for await (const _ of agent.prompt('go')) void _;
    const seconds = (performance.now() - started) / 1000;
    await agent.close();
    if (i >= WARMUPS) rates.push(CALLS / seconds);
  }
  await kernel.close();
  fs.rmSync(project, { recursive: true, force: true });
  rates.sort((a, b) => a - b);
  return rates[Math.floor(rates.length / 2)];
}

const without = await side(false);
const withExt = await side(true);
console.log(`beforeToolCall, ${CALLS} tool calls per run, median of ${RUNS} runs:`);
console.log(`  no extension:          ${without.toFixed(0)} calls/s`);
console.log(`  one extension (allow): ${withExt.toFixed(0)} calls/s (${(1000 / withExt - 1000 / without).toFixed(3)} ms added per call)`);
