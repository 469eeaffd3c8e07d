/** Runs a workload on @mariozechner/pi-agent-core 0.73.1 with pi-ai's faux provider. */
import { Agent } from '@mariozechner/pi-agent-core';
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider } from '@mariozechner/pi-ai';
import { seedTurns } from './workloads.mjs';

const noop = {
  name: 'noop',
  label: 'noop',
  description: 'does nothing',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  execute: async () => ({ content: [{ type: 'text', text: 'ok' }], details: undefined }),
};

function responses(workload) {
  const list = [];
  for (let index = 0; index < workload.toolTurns; index++) list.push(fauxAssistantMessage([fauxToolCall('noop', {}, { id: `call-${index}` })], { stopReason: 'toolUse' }));
  for (let index = 0; index < workload.prompts; index++) list.push(fauxAssistantMessage(`answer ${index}`));
  return list;
}

function seed(count, model) {
  const now = Date.now();
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  return seedTurns(count).map(({ role, text }) =>
    role === 'user'
      ? { role, content: text, timestamp: now }
      : { role, content: [{ type: 'text', text }], api: model.api, provider: model.provider, model: model.id, usage, stopReason: 'stop', timestamp: now },
  );
}

/** Runs once; returns { turns, events }. */
export async function run(workload) {
  const faux = registerFauxProvider();
  faux.setResponses(responses(workload));
  const model = faux.getModel();
  const agent = new Agent({ initialState: { model, systemPrompt: 'You are a benchmark.', tools: [noop], messages: seed(workload.seedMessages, model) } });
  let turns = 0;
  let events = 0;
  agent.subscribe((event) => {
    events++;
    if (event.type === 'turn_end') turns++;
  });
  for (let index = 0; index < workload.prompts; index++) {
    await agent.prompt(`prompt ${index}`);
    const last = agent.state.messages.at(-1);
    if (last?.role !== 'assistant' || last.stopReason !== 'stop') throw new Error(`pi run ended with ${last?.stopReason}: ${last?.errorMessage}`);
  }
  faux.unregister();
  return { turns, events };
}
