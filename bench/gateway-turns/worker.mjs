/**
 * One measurement in a fresh process:
 *   node [--expose-gc] worker.mjs <root> <dir> <messages> <turns|rss> [tap]
 * <root> is a checkout whose dist/ is measured (this one, or another for a
 * before/after pair). It seeds a claw store session with <messages> messages
 * (session-store's workload), builds an agent from store.context() as the
 * gateway does, wires the gateway's SessionWriter to it (flush as the
 * beforeModelCall barrier), and runs prompts on a lean scripted model. Mode
 * `turns`: each prompt is two model calls (a no-op tool call, then an answer),
 * four stored messages; it reports the median CPU time per warm prompt and the
 * median of each prompt's longest event-loop block (measured on other prompts). Mode `rss`: 1,000
 * one-answer prompts, RSS after a GC every 100. `tap` adds a context tap that
 * passes the messages on, as an extension asking for the context does.
 * Prints one JSON line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as tick } from 'node:timers/promises';
import { message, toXdog } from '../session-store/workload.mjs';

const [root, dir, messagesArg, mode, tapArg] = process.argv.slice(2);
const dist = (file) => new URL(`dist/${file}`, `file://${path.resolve(root)}/`).href;
const { Agent, tapHook } = await import(dist('core/index.js'));
const { openClawDataSource } = await import(dist('entities/index.js'));
const { openSessionStore } = await import(dist('plugins/sessions/index.js'));
const { SessionWriter } = await import(dist('plugins/claw-gateway/session-writer.js'));

const seeded = Number(messagesArg);
const usage = () => ({ input: 10, output: 5, cacheRead: 0, cacheWrite: 0 });
const noop = { name: 'noop', description: 'does nothing', parameters: { type: 'object', properties: {}, additionalProperties: false }, execute: async () => ({ content: [{ type: 'text', text: 'ok' }] }) };

/** Alternates a tool call and an answer (mode turns) or answers at once (mode rss). */
function leanStream(withTool) {
  let call = 0;
  return async function* stream(model) {
    const partial = { role: 'assistant', content: [], model, usage: usage(), stopReason: 'stop', timestamp: Date.now() };
    yield { type: 'start', partial };
    if (withTool && call++ % 2 === 0) {
      partial.content.push({ type: 'toolCall', id: `c${call}`, name: 'noop', arguments: {} });
      yield { type: 'toolcall_end', partial };
      partial.stopReason = 'toolUse';
    } else {
      partial.content.push({ type: 'text', text: 'done' });
      yield { type: 'text_delta', delta: 'done', partial };
    }
    yield { type: 'done', message: partial };
  };
}

const file = path.join(dir, `claw-${process.pid}.db`);
const dataSource = await openClawDataSource({ type: 'sqlite', file });
const store = openSessionStore(dataSource);
await store.ensureGroup('bench');
const session = await store.createSession('bench', { model: 'openai/gpt-5.1' });
for (let i = 0; i < seeded; i += 1000) {
  const entries = [];
  for (let j = i; j < Math.min(seeded, i + 1000); j++) entries.push({ kind: 'message', payload: { message: toXdog(message(j)) } });
  await store.append(session.id, entries);
}

const context = await store.context(session.id);
let writer;
const agent = new Agent(leanStream(mode === 'turns'), { model: 'openai/gpt-5.1', systemPrompt: 'You are a benchmark.' }, { tools: [noop], beforeModelCall: () => writer.flush() });
agent.restore({ kind: 'xdog.agent.snapshot', version: 1, model: 'openai/gpt-5.1', usage: usage(), messages: context.messages });
// `hasSummary` is the older writer's option; the newer one ignores it.
writer = new SessionWriter(agent, { store, group: 'bench', sessionId: session.id, clock: { now: () => Date.now() }, hasSummary: true, relay() {}, onFailure(error) { throw error; } });
if (tapArg === 'tap') tapHook(agent.hooks.context, 'bench', (messages) => messages);
const contextTaps = agent.hooks.context.taps.length;

async function prompt(index) {
  const result = await agent.prompt(`prompt ${index}`).result();
  await writer.flush();
  if (result.status !== 'completed') throw new Error(`run ended with ${result.status}: ${result.errorMessage}`);
}

const mid = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const out = { node: process.version, seeded, contextTaps };
if (mode === 'turns') {
  for (let i = 0; i < 5; i++) await prompt(i);
  const cpu = [];
  const blocks = [];
  for (let i = 0; i < Number(process.env.BENCH_PROMPTS ?? 20); i++) {
    await tick();
    const before = process.cpuUsage();
    await prompt(i);
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
    // A separate prompt for blocking: a setImmediate chain notes the longest gap between its turns (its own CPU stays out of the figure above).
    let running = true;
    let last = performance.now();
    let longest = 0;
    const spin = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      if (running) setImmediate(spin);
    };
    setImmediate(spin);
    await prompt(i);
    running = false;
    await tick();
    blocks.push(longest);
  }
  // The median over prompts, so one descheduling by a loaded machine does not decide.
  Object.assign(out, { cpuMsPerPrompt: mid(cpu), blockMs: mid(blocks) });
} else {
  const rss = [];
  const start = performance.now();
  for (let i = 1; i <= 1000; i++) {
    await prompt(i);
    if (i % 100 === 0) {
      globalThis.gc?.();
      await tick();
      rss.push(process.memoryUsage().rss / 2 ** 20);
    }
  }
  Object.assign(out, { rssMiB: rss, seconds: (performance.now() - start) / 1000 });
}
await agent.close();
await dataSource.destroy();
for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
process.stdout.write(`${JSON.stringify(out)}\n`);
