/**
 * A pi extension written for the cli-start bench: registers the provider
 * "bench" with one model whose every answer is the same short text, streamed
 * at once, so `pi -p` runs offline and the bench times pi's own start.
 */
import { createAssistantMessageEventStream } from '@earendil-works/pi-ai';

const REPLY = 'Hello from the bench.';

function streamOneReply(model) {
  const stream = createAssistantMessageEventStream();
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const message = { role: 'assistant', content: [{ type: 'text', text: REPLY }], api: model.api, provider: model.provider, model: model.id, usage, stopReason: 'stop', timestamp: Date.now() };
  stream.push({ type: 'start', partial: { ...message, content: [] } });
  stream.push({ type: 'text_delta', contentIndex: 0, delta: REPLY, partial: message });
  stream.push({ type: 'done', reason: 'stop', message });
  return stream;
}

export default function oneReply(pi) {
  pi.registerProvider('bench', {
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'unused',
    api: 'bench-one-reply',
    models: [{ id: 'one', name: 'one reply', reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 100000, maxTokens: 1000 }],
    streamSimple: streamOneReply,
  });
}
