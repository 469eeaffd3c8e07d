/** Runs a workload on @earendil-works/pi-agent-core 1.6.0, the newest pi. */
import { performance } from 'node:perf_hooks';
import { Agent } from '@earendil-works/pi-agent-core';
import { createAssistantMessageEventStream, fauxAssistantMessage, fauxToolCall } from '@earendil-works/pi-ai';
// 1.x moved the global provider registry (and the faux provider's registration) to the compat entry.
import { registerFauxProvider, streamSimple } from '@earendil-works/pi-ai/compat';
import { script, seedTurns } from './workloads.mjs';

const noop = {
  name: 'noop',
  label: 'noop',
  description: 'does nothing',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  execute: async () => ({ content: [{ type: 'text', text: 'ok' }], details: undefined }),
};

const usage = () => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });

/** The model the lean stream claims to be (pi-agent-core reads these fields). */
const leanModel = { id: 'bench', name: 'bench', api: 'bench', provider: 'bench', baseUrl: '', reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1_000_000, maxTokens: 1_000 };

/**
 * The lean stream: plays the script with the events a real provider streams
 * (start, one delta, toolcall_end for a call, done) and nothing else. pi's
 * stream contract is its EventStream object, so the events go through it.
 */
function leanStream(replies) {
  let next = 0;
  return (model) => {
    const reply = replies[next++];
    const stream = createAssistantMessageEventStream();
    const partial = { role: 'assistant', content: [], api: model.api, provider: model.provider, model: model.id, usage: usage(), stopReason: 'stop', timestamp: Date.now() };
    stream.push({ type: 'start', partial });
    if (reply.toolCall) {
      const toolCall = { type: 'toolCall', id: reply.toolCall.id, name: reply.toolCall.name, arguments: {} };
      partial.content.push(toolCall);
      stream.push({ type: 'toolcall_delta', contentIndex: 0, delta: '{}', partial });
      stream.push({ type: 'toolcall_end', contentIndex: 0, toolCall, partial });
      partial.stopReason = 'toolUse';
      stream.push({ type: 'done', reason: 'toolUse', message: partial });
    } else {
      partial.content.push({ type: 'text', text: reply.text });
      stream.push({ type: 'text_delta', contentIndex: 0, delta: reply.text, partial });
      stream.push({ type: 'done', reason: 'stop', message: partial });
    }
    return stream;
  };
}

function seed(count, model) {
  const now = Date.now();
  return seedTurns(count).map(({ role, text }) =>
    role === 'user'
      ? { role, content: text, timestamp: now }
      : { role, content: [{ type: 'text', text }], api: model.api, provider: model.provider, model: model.id, usage: usage(), stopReason: 'stop', timestamp: now },
  );
}

/** Runs once; returns { turns, events, seconds, cpuSeconds } (wall and CPU time of the prompts only, not of building the agent). */
export async function run(workload) {
  const replies = script(workload);
  let model;
  let streamFn;
  let faux;
  if (workload.stream === 'lean') {
    model = leanModel;
    streamFn = leanStream(replies);
  } else {
    faux = registerFauxProvider();
    faux.setResponses(replies.map((reply) => (reply.toolCall ? fauxAssistantMessage([fauxToolCall(reply.toolCall.name, {}, { id: reply.toolCall.id })], { stopReason: 'toolUse' }) : fauxAssistantMessage(reply.text))));
    model = faux.getModel();
    streamFn = streamSimple;
  }
  const agent = new Agent({ streamFn, initialState: { model, systemPrompt: 'You are a benchmark.', tools: [noop], messages: seed(workload.seedMessages, model) } });
  let turns = 0;
  let events = 0;
  agent.subscribe((event) => {
    events++;
    if (event.type === 'turn_end') turns++;
  });
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let index = 0; index < workload.prompts; index++) {
    await agent.prompt(`prompt ${index}`);
    const last = agent.state.messages.at(-1);
    if (last?.role !== 'assistant' || last.stopReason !== 'stop') throw new Error(`pi run ended with ${last?.stopReason}: ${last?.errorMessage}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  faux?.unregister();
  return { turns, events, seconds, cpuSeconds };
}
