/**
 * The workloads, described once and run by both systems. Each names the
 * stream function that plays the model:
 * - "lean": a minimal scripted stream written for this bench, the same on
 *   both sides (start, one delta, tool-call end or not, done; no usage
 *   estimation, no provider work), so the figure is the loop's own cost;
 * - "faux": each system's own faux provider (xdog's `faux`, pi-ai's
 *   `registerFauxProvider`). pi's re-serialises the whole transcript on
 *   every call to estimate usage, so these figures measure the test
 *   providers as much as the loops; they are kept, labelled, for reference.
 */
export const WORKLOADS = {
  /** One prompt whose model makes 1,000 consecutive turns, each calling a no-op tool, then answers. */
  lean: { stream: 'lean', turns: 1001, toolTurns: 1000, seedMessages: 0, prompts: 1 },
  /** 200 one-turn prompts over a context that starts at 200 messages. */
  'long-context': { stream: 'lean', turns: 200, toolTurns: 0, seedMessages: 200, prompts: 200 },
  'faux-tool-turns': { stream: 'faux', turns: 1001, toolTurns: 1000, seedMessages: 0, prompts: 1 },
  'faux-long-context': { stream: 'faux', turns: 200, toolTurns: 0, seedMessages: 200, prompts: 200 },
};

/** Filler text for seeded history (about 60 words a message). */
export const FILLER = 'The quick brown fox jumps over the lazy dog while the agent keeps a long history of notes. '.repeat(4).trim();

/** The seeded history as plain role/text pairs: user, assistant, user, ... */
export function seedTurns(count) {
  return Array.from({ length: count }, (_, index) => ({ role: index % 2 === 0 ? 'user' : 'assistant', text: `${index}: ${FILLER}` }));
}

/**
 * The scripted replies of a workload, in order, as plain data both lean
 * streams turn into their own event shapes: `{ toolCall: { id, name } }` or `{ text }`.
 */
export function script(workload) {
  const replies = [];
  for (let index = 0; index < workload.toolTurns; index++) replies.push({ toolCall: { id: `call-${index}`, name: 'noop' } });
  for (let index = 0; index < workload.prompts; index++) replies.push({ text: `answer ${index}` });
  return replies;
}
