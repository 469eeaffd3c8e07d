/**
 * The two scripted workloads, described once and run by both systems:
 * (a) "tool-turns": one prompt whose model makes 1,000 consecutive turns,
 *     each calling a no-op tool, then answers;
 * (b) "long-context": 200 turns (one prompt each, answered with text) over a
 *     context that starts at 200 messages.
 */
export const WORKLOADS = {
  'tool-turns': { turns: 1001, toolTurns: 1000, seedMessages: 0, prompts: 1 },
  'long-context': { turns: 200, toolTurns: 0, seedMessages: 200, prompts: 200 },
};

/** Filler text for seeded history (about 60 words a message). */
export const FILLER = 'The quick brown fox jumps over the lazy dog while the agent keeps a long history of notes. '.repeat(4).trim();

/** The seeded history as plain role/text pairs: user, assistant, user, ... */
export function seedTurns(count) {
  return Array.from({ length: count }, (_, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', text: `${index}: ${FILLER}` }));
}
