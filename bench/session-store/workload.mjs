/**
 * The session both systems store: 20,000 entries of a realistic coding
 * conversation, cycles of (user prompt, assistant text + tool call, tool
 * result with a ~1 KiB output, assistant answer). Deterministic, so every
 * process builds the same messages.
 */
export const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 20_000);

const words = 'the build failed because a test expected the old config path while the loader reads xdg data home first'.split(' ');
function text(seed, count) {
  let out = '';
  for (let i = 0; i < count; i++) out += `${words[(seed * 7 + i * 13) % words.length]} `;
  return out.trim();
}

const usage = { input: 1200, output: 150, cacheRead: 800, cacheWrite: 0 };

/** The i-th message in pi-ai's shape (xdog's is the same minus api/provider/cost, see toXdog). */
export function message(i) {
  const cycle = Math.floor(i / 4);
  const timestamp = 1_764_000_000_000 + i * 1000;
  const callId = `call_${cycle}`;
  switch (i % 4) {
    case 0:
      return { role: 'user', content: [{ type: 'text', text: `step ${cycle}: ${text(cycle, 30)}` }], timestamp };
    case 1:
      return {
        role: 'assistant',
        content: [
          { type: 'text', text: text(cycle + 1, 25) },
          { type: 'toolCall', id: callId, name: 'bash', arguments: { command: `grep -rn "config" src/module-${cycle}.ts` } },
        ],
        api: 'openai-responses',
        provider: 'openai',
        model: 'gpt-5.1',
        usage: { ...usage, totalTokens: 2150, cost: { input: 0.001, output: 0.001, cacheRead: 0, cacheWrite: 0, total: 0.002 } },
        stopReason: 'toolUse',
        timestamp,
      };
    case 2:
      return { role: 'toolResult', toolCallId: callId, toolName: 'bash', content: [{ type: 'text', text: text(cycle + 2, 180) }], isError: false, timestamp };
    default:
      return {
        role: 'assistant',
        content: [{ type: 'text', text: text(cycle + 3, 60) }],
        api: 'openai-responses',
        provider: 'openai',
        model: 'gpt-5.1',
        usage: { ...usage, totalTokens: 2150, cost: { input: 0.001, output: 0.001, cacheRead: 0, cacheWrite: 0, total: 0.002 } },
        stopReason: 'stop',
        timestamp,
      };
  }
}

/** The same message in xdog's (strict) message schema. */
export function toXdog(m) {
  if (m.role !== 'assistant') return m;
  const { api: _api, provider: _provider, usage: u, ...rest } = m;
  return { ...rest, model: `${m.provider}/${m.model}`, usage: { input: u.input, output: u.output, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite } };
}
