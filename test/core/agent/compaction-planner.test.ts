/** The compaction planner: a pure function, checked over random well-formed histories. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compactionSummaryMessage,
  contextTokens,
  estimateTokens,
  findPairingProblem,
  planCompaction,
  summaryFromMessage,
  userTurnStarts,
  type AssistantMessage,
  type Message,
} from '../../../core/index.js';

const user = (text: string): Message => ({ role: 'user', content: text, timestamp: 1 });
const answer = (text: string, tokens = 0): AssistantMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
  model: 'm',
  usage: { input: tokens, output: 0, cacheRead: 0, cacheWrite: 0 },
  stopReason: 'stop',
  timestamp: 1,
});

/** One step of a turn: a tool batch (calls, then their results), or a steer admitted after a batch. */
type Step = { kind: 'batch'; calls: number; size: number } | { kind: 'steer'; size: number };
/** A user turn: the prompt (one or more user messages), tool batches and steers, then a final answer. */
interface Turn {
  prompts: number[];
  steps: Step[];
  answer: number;
}

const text = (size: number) => 'x'.repeat(size);

/** Lays turns out as messages; ids are unique across the history. */
function build(turns: Turn[]): Message[] {
  const messages: Message[] = [];
  let id = 0;
  for (const turn of turns) {
    for (const size of turn.prompts) messages.push(user(text(size)));
    let batchOpen = false;
    for (const step of turn.steps) {
      if (step.kind === 'steer') {
        // A steer is admitted only at a checkpoint after a tool batch.
        if (!batchOpen) continue;
        messages.push(user(text(step.size)));
        batchOpen = false;
        continue;
      }
      const ids = Array.from({ length: step.calls }, () => `call-${++id}`);
      messages.push({
        role: 'assistant',
        content: ids.map((callId) => ({ type: 'toolCall' as const, id: callId, name: 'read', arguments: { path: text(step.size) } })),
        model: 'm',
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        stopReason: 'toolUse',
        timestamp: 1,
      });
      for (const callId of ids) messages.push({ role: 'toolResult', toolCallId: callId, toolName: 'read', content: [{ type: 'text', text: text(step.size) }], isError: false, timestamp: 1 });
      batchOpen = true;
    }
    messages.push(answer(text(turn.answer)));
  }
  return messages;
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('batch' as const), calls: fc.integer({ min: 1, max: 4 }), size: fc.integer({ min: 0, max: 400 }) }),
  fc.record({ kind: fc.constant('steer' as const), size: fc.integer({ min: 1, max: 200 }) }),
);
const turnArb: fc.Arbitrary<Turn> = fc.record({
  prompts: fc.array(fc.integer({ min: 1, max: 600 }), { minLength: 1, maxLength: 2 }),
  steps: fc.array(stepArb, { maxLength: 5 }),
  answer: fc.integer({ min: 0, max: 600 }),
});

/** The index of the first message of the latest user turn, computed from the turn structure, not by the planner's helper. */
function latestTurnStart(turns: Turn[], messages: Message[]): number {
  return messages.length - build(turns.slice(-1)).length;
}

describe('planCompaction', () => {
  it('never cuts inside a tool batch, never after the latest user turn starts, and keeps what it promises', () => {
    fc.assert(
      fc.property(fc.array(turnArb, { minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 3000 }), fc.boolean(), (turns, keepRecentTokens, summarized) => {
        const body = build(turns);
        const messages = summarized ? [compactionSummaryMessage('earlier work', 1), ...body] : body;
        const offset = summarized ? 1 : 0;
        const plan = planCompaction(messages, { keepRecentTokens, summarized });
        const latest = latestTurnStart(turns, messages);
        if (!plan) {
          // Nothing to do only for a single turn or a history within the recent budget.
          expect(turns.length === 1 || estimateTokens(messages, offset) <= keepRecentTokens).toBe(true);
          return;
        }
        const kept = messages.slice(plan.firstKeptIndex);
        const summarizedPart = messages.slice(plan.summarizeFrom, plan.firstKeptIndex);
        expect(plan.summarizeFrom).toBe(offset);
        expect(summarizedPart.length).toBeGreaterThan(0);
        // Both halves are whole conversations: no call is separated from its result.
        expect(findPairingProblem(kept)).toBeUndefined();
        expect(findPairingProblem(summarizedPart)).toBeUndefined();
        // The cut is the first message of a turn: a user message after a final answer.
        expect(messages[plan.firstKeptIndex]!.role).toBe('user');
        const before = messages[plan.firstKeptIndex - 1]!;
        expect(before.role).toBe('assistant');
        expect((before as AssistantMessage).content.some((part) => part.type === 'toolCall')).toBe(false);
        // The latest user turn is kept whole.
        expect(plan.firstKeptIndex).toBeLessThanOrEqual(latest);
        expect(plan.keptTokens).toBe(estimateTokens(messages, plan.firstKeptIndex));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps at least keepRecentTokens when a later cut would not', () => {
    const turns = [user('a'.repeat(400)), answer('b'.repeat(400)), user('c'.repeat(400)), answer('d'.repeat(400)), user('e'.repeat(40)), answer('f'.repeat(40))];
    // Each long turn is 200 tokens, the last one 20: keeping 100 needs the middle turn too.
    expect(planCompaction(turns, { keepRecentTokens: 100 })).toMatchObject({ summarizeFrom: 0, firstKeptIndex: 2, keptTokens: 220 });
    expect(planCompaction(turns, { keepRecentTokens: 10 })).toMatchObject({ firstKeptIndex: 4 });
  });

  it('returns nothing for a single turn or a small history', () => {
    expect(planCompaction([user('hi'), answer('hello')], { keepRecentTokens: 0 })).toBeUndefined();
    expect(planCompaction([user('hi'), answer('hello'), user('again'), answer('yes')], { keepRecentTokens: 1000 })).toBeUndefined();
  });

  it('treats a steer after tool results as part of the turn it steers', () => {
    const history = build([{ prompts: [10], steps: [{ kind: 'batch', calls: 1, size: 5 }, { kind: 'steer', size: 5 }], answer: 5 }]);
    expect(userTurnStarts(history)).toEqual([0]);
  });
});

describe('summary messages and token counts', () => {
  it('round-trip the summary through its message', () => {
    expect(summaryFromMessage(compactionSummaryMessage('## Goal\nship it', 5))).toBe('## Goal\nship it');
    expect(summaryFromMessage(user('Summary of the earlier part'))).toBeUndefined();
  });

  it('uses the latest reliable usage plus estimates after it', () => {
    const history = [user('x'.repeat(40)), answer('ok', 5000), user('y'.repeat(400))];
    expect(contextTokens(history)).toBe(5100);
    // Usage before a compaction is stale: everything is estimated.
    expect(contextTokens(history, 3)).toBe(estimateTokens(history));
  });
});
