/** The `compactionSummary` hook: taps rewrite the summary in order; a failing or invalid tap fails the compaction and changes nothing. */
import { describe, expect, it } from 'vitest';
import { LIMITS, summaryFromMessage, tapHook } from '../../../core/index.js';
import { scripted } from './helpers.js';

const long = (label: string) => `${label} ${'lorem ipsum '.repeat(40)}`;

async function withHistory() {
  const { agent } = scripted([{ text: long('one') }, { text: long('two') }, { text: long('three') }, { text: 'SUMMARY' }], { compaction: { keepRecentTokens: 50 } });
  for (const prompt of [long('first'), long('second'), long('third')]) await agent.prompt(prompt).result();
  return agent;
}

describe('compactionSummary hook', () => {
  it('passes the summary through every tap in order and commits the last one', async () => {
    const agent = await withHistory();
    tapHook(agent.hooks.compactionSummary, 'a', (summary: string) => `${summary} +a`);
    tapHook(agent.hooks.compactionSummary, 'b', async (summary: string) => `${summary} +b`);
    const result = await agent.compact();
    expect(result).toMatchObject({ compacted: true, summary: 'SUMMARY +a +b' });
    expect(summaryFromMessage(agent.messages[0])).toBe('SUMMARY +a +b');
  });

  it.each([
    ['throws', () => { throw new Error('boom'); }, 'compactionSummary hook "bad" failed: boom'],
    ['returns nothing', () => undefined, 'compactionSummary hook "bad" returned no summary'],
    ['returns an empty summary', () => '  ', 'compactionSummary hook "bad" returned an empty summary'],
    ['goes over the limit', () => 'x'.repeat(LIMITS.compactionSummaryBytes + 1), `over the limit of ${LIMITS.compactionSummaryBytes}`],
  ])('fails the compaction closed when a tap %s', async (_what, tap, message) => {
    const agent = await withHistory();
    const before = agent.messages;
    tapHook(agent.hooks.compactionSummary, 'bad', tap);
    await expect(agent.compact()).rejects.toMatchObject({ code: 'HOOK_FAILED', message: expect.stringContaining(message) });
    expect(agent.messages).toEqual(before);
    expect(agent.compactionState).toBeUndefined();
  });
});
