/**
 * Runs a workload on xdog (the compiled package in ../../dist, or the dist
 * folder BENCH_XDOG_DIST names: another checkout, for before/after figures):
 * the agent SDK as `xdog/agent` exports it (dist/core/agent, without the
 * kernel), and the faux provider only for the faux workloads.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { script, seedTurns } from './workloads.mjs';

const dist = process.env.BENCH_XDOG_DIST ? pathToFileURL(path.resolve(process.env.BENCH_XDOG_DIST) + '/') : new URL('../../dist/', import.meta.url);
const { Agent } = await import(new URL('core/agent/index.js', dist).href);
const noop = {
  name: 'noop',
  description: 'does nothing',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  execute: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
};

const usage = () => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

/**
 * The lean stream: plays the script with the events a real provider streams
 * (start, one delta, toolcall_end for a call, done) and nothing else.
 */
function leanStream(replies) {
  let next = 0;
  return async function* stream(model) {
    const reply = replies[next++];
    const partial = { role: 'assistant', content: [], model, usage: usage(), stopReason: 'stop', timestamp: Date.now() };
    yield { type: 'start', partial };
    if (reply.toolCall) {
      partial.content.push({ type: 'toolCall', id: reply.toolCall.id, name: reply.toolCall.name, arguments: {} });
      yield { type: 'toolcall_delta', delta: '{}', partial };
      yield { type: 'toolcall_end', partial };
      partial.stopReason = 'toolUse';
    } else {
      partial.content.push({ type: 'text', text: reply.text });
      yield { type: 'text_delta', delta: reply.text, partial };
    }
    yield { type: 'done', message: partial };
  };
}

async function fauxStream(replies) {
  const { createFauxStreamFn } = await import(new URL('plugins/faux/index.js', dist).href);
  const responses = replies.map((reply) => (reply.toolCall ? { toolCalls: [{ name: reply.toolCall.name, arguments: {}, id: reply.toolCall.id }] } : { text: reply.text }));
  return createFauxStreamFn({ responses, record: false });
}

function seed(count) {
  const now = Date.now();
  return seedTurns(count).map(({ role, text }) =>
    role === 'user'
      ? { role, content: text, timestamp: now }
      : { role, content: [{ type: 'text', text }], model: 'faux/bench', usage: usage(), stopReason: 'stop', timestamp: now },
  );
}

/** Runs once; returns { turns, events, seconds, cpuSeconds } (wall and CPU time of the prompts only, not of building the agent). */
export async function run(workload) {
  const replies = script(workload);
  const model = workload.stream === 'lean' ? leanStream(replies) : await fauxStream(replies);
  const agent = new Agent(model, { model: 'faux/bench', systemPrompt: 'You are a benchmark.' }, { tools: [noop] });
  if (workload.seedMessages) agent.restore({ kind: 'xdog.agent.snapshot', version: 1, model: 'faux/bench', usage: usage(), messages: seed(workload.seedMessages) });
  let turns = 0;
  let events = 0;
  agent.subscribe((event) => {
    events++;
    if (event.type === 'turn_end') turns++;
  });
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let index = 0; index < workload.prompts; index++) {
    const result = await agent.prompt(`prompt ${index}`).result();
    if (result.status !== 'completed') throw new Error(`xdog run ended with ${result.status}: ${result.errorMessage}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  await agent.close();
  return { turns, events, seconds, cpuSeconds };
}
