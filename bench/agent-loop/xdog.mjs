/** Runs a workload on xdog (the compiled package in ../../dist). */
import { Agent } from '../../dist/core/index.js';
import { createFauxStreamFn } from '../../dist/plugins/faux/index.js';
import { seedTurns } from './workloads.mjs';

const noop = {
  name: 'noop',
  description: 'does nothing',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  execute: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
};

function responses(workload) {
  const list = [];
  for (let index = 0; index < workload.toolTurns; index++) list.push({ toolCalls: [{ name: 'noop', arguments: {}, id: `call-${index}` }] });
  for (let index = 0; index < workload.prompts; index++) list.push({ text: `answer ${index}` });
  return list;
}

function seed(count) {
  const now = Date.now();
  return seedTurns(count).map(({ role, text }) =>
    role === 'user'
      ? { role, content: text, timestamp: now }
      : { role, content: [{ type: 'text', text }], model: 'faux/bench', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, stopReason: 'stop', timestamp: now },
  );
}

/** Runs once; returns { turns, events }. */
export async function run(workload) {
  const model = createFauxStreamFn({ responses: responses(workload), record: false });
  const agent = new Agent(model, { model: 'faux/bench', systemPrompt: 'You are a benchmark.' }, { tools: [noop] });
  if (workload.seedMessages) agent.restore({ kind: 'xdog.agent.snapshot', version: 1, model: 'faux/bench', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, messages: seed(workload.seedMessages) });
  let turns = 0;
  let events = 0;
  agent.subscribe((event) => {
    events++;
    if (event.type === 'turn_end') turns++;
  });
  for (let index = 0; index < workload.prompts; index++) {
    const result = await agent.prompt(`prompt ${index}`).result();
    if (result.status !== 'completed') throw new Error(`xdog run ended with ${result.status}: ${result.errorMessage}`);
  }
  await agent.close();
  return { turns, events };
}
