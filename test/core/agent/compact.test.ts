/** Agent.compact(), automatic compaction, overflow recovery, the compaction hooks and snapshots of a compacted agent. */
import { describe, expect, it } from 'vitest';
import { Agent, ErrorCodes, XdogError, isContextOverflow, summaryFromMessage, tapHook, type AssistantMessage, type ModelStreamFn, type AgentEvent, type CompactionCommitted, type CompactionPreparation, type Message } from '../../../core/index.js';
import { createFauxStreamFn } from '../../../plugins/faux/index.js';
import { deferred, recordingTool, requestTexts, scripted } from './helpers.js';

const long = (label: string) => `${label} ${'lorem ipsum '.repeat(40)}`;

/** An agent with three finished turns (each about 120 tokens) played on the faux model. */
async function withHistory(extra: Parameters<typeof scripted>[0] = [], options: Parameters<typeof scripted>[1] = {}) {
  const { agent, model } = scripted(
    [{ text: long('answer one') }, { toolCalls: [{ name: 'read', arguments: { path: 'src/app.ts' } }] }, { text: long('answer two') }, { text: long('answer three') }, ...extra],
    { tools: [recordingTool('read').tool], compaction: { keepRecentTokens: 50 }, ...options },
  );
  for (const prompt of [long('first'), long('second'), long('third')]) await agent.prompt(prompt).result();
  return { agent, model };
}

describe('agent.compact()', () => {
  it('summarizes the older turns with the session model and no tools, keeping the latest turn', async () => {
    const { agent, model } = await withHistory([{ text: '## Goal\nFix src/app.ts (TypeError: x is undefined)' }]);
    const before = agent.messages;
    const result = await agent.compact('keep the file names');
    expect(result).toMatchObject({ compacted: true, reason: 'manual', custom: false, before: before.length, count: 1, summary: '## Goal\nFix src/app.ts (TypeError: x is undefined)' });
    if (!result.compacted) throw new Error('not compacted');
    // The summary request: no tools, the conversation and the focus in one user message.
    const request = model.requests[4]!;
    expect(request.tools).toEqual([]);
    expect(request.systemPrompt).toContain('Do NOT continue the conversation');
    expect(requestTexts(model, 4)[0]).toContain('[tool call read {"path":"src/app.ts"}]');
    expect(requestTexts(model, 4)[0]).toContain('Additional focus: keep the file names');
    // History: the summary, then the latest turn verbatim.
    const after = agent.messages;
    expect(summaryFromMessage(after[0])).toBe(result.summary);
    expect(after.slice(1)).toEqual(before.slice(result.firstKeptIndex));
    expect(after[1]).toMatchObject({ role: 'user', content: long('third') });
    expect(agent.compactionState).toEqual({ summary: result.summary, count: 1 });
  });

  it('starts the next request with the summary', async () => {
    const { agent, model } = await withHistory([{ text: 'SUMMARY-1' }, { text: 'next answer' }]);
    await agent.compact();
    await agent.prompt('go on').result();
    const texts = requestTexts(model, 5);
    expect(texts[0]).toContain('SUMMARY-1');
    expect(texts.at(-1)).toBe('go on');
  });

  it('updates the previous summary instead of starting over', async () => {
    const { agent, model } = await withHistory([{ text: 'SUMMARY-1' }, { text: long('answer four') }, { text: long('answer five') }, { text: 'SUMMARY-2' }]);
    await agent.compact();
    await agent.prompt(long('fourth')).result();
    await agent.prompt(long('fifth')).result();
    const result = await agent.compact();
    expect(result).toMatchObject({ compacted: true, count: 2, summary: 'SUMMARY-2' });
    const prompt = requestTexts(model, 7)[0]!;
    expect(prompt).toContain('<previous-summary>\nSUMMARY-1\n</previous-summary>');
    // The old summary message is folded in through <previous-summary>, not summarized again as conversation.
    expect(prompt).not.toContain('Summary of the earlier part');
    expect(summaryFromMessage(agent.messages[0])).toBe('SUMMARY-2');
  });

  it('is a no-op without a model call for a tiny history', async () => {
    const { agent, model } = scripted([{ text: 'hello' }]);
    await agent.prompt('hi').result();
    const before = agent.messages;
    expect(await agent.compact()).toMatchObject({ compacted: false, reason: 'too-small' });
    expect(model.callCount).toBe(1);
    expect(agent.messages).toEqual(before);
  });

  it.each([
    ['a failed summary', { error: 'server error (HTTP 500)' }, 'MODEL_FAILED'],
    ['an empty summary', { text: '   ' }, 'MODEL_FAILED'],
  ])('leaves the history unchanged after %s', async (_label, response, code) => {
    const { agent } = await withHistory([response]);
    const before = agent.messages;
    await expect(agent.compact()).rejects.toMatchObject({ code });
    expect(agent.messages).toEqual(before);
    expect(agent.compactionState).toBeUndefined();
  });

  it('leaves the history unchanged when cancelled, and refuses prompts meanwhile', async () => {
    const { agent } = await withHistory([{ text: 'late summary', delayMs: 60_000 }]);
    const before = agent.messages;
    const compaction = agent.compact();
    expect(agent.isIdle).toBe(false);
    expect(() => agent.prompt('now')).toThrow(/compacting/);
    agent.abort();
    await expect(compaction).rejects.toMatchObject({ code: 'ABORTED' });
    expect(agent.messages).toEqual(before);
    expect(agent.isIdle).toBe(true);
  });

  it('refuses while a run is active (its tool call is not answered yet)', async () => {
    const gate = deferred();
    const { agent, model } = scripted([{ toolCalls: [{ name: 'wait', arguments: {} }] }, { text: 'done' }], {
      tools: [{ name: 'wait', description: 'waits', parameters: { type: 'object', properties: {} }, execute: async () => (await gate.promise, { content: [] }) }],
    });
    const run = agent.prompt('go');
    await expect(agent.compact()).rejects.toMatchObject({ code: 'INVALID_STATE' });
    gate.resolve();
    await run.result();
    expect(model.callCount).toBe(2);
  });
});

describe('summaries that cannot be used', () => {
  it('refuses a summary cut off at the output limit', async () => {
    const { agent } = await withHistory();
    const before = agent.messages;
    const cutOff: ModelStreamFn = async function* () {
      const message: AssistantMessage = { role: 'assistant', content: [{ type: 'text', text: '## Goal\nShip' }], model: 'm', usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, stopReason: 'length', timestamp: 1 };
      yield { type: 'done', message };
    };
    agent.setStreamFn(cutOff);
    await expect(agent.compact()).rejects.toMatchObject({ code: 'MODEL_FAILED', message: expect.stringContaining('incomplete') });
    expect(agent.messages).toEqual(before);
  });
});

describe('isContextOverflow', () => {
  const failed = (errorMessage: string): AssistantMessage => ({ role: 'assistant', content: [], model: 'm', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, stopReason: 'error', errorMessage, timestamp: 1 });
  it.each([
    "openai: request rejected (HTTP 400): This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
    'openai: the server reported context_length_exceeded: too many tokens',
    'anthropic: request rejected (HTTP 400): prompt is too long: 210000 tokens > 200000 maximum',
    'google: request rejected (HTTP 400): The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
    'local: request rejected (HTTP 400): the request exceeds the available context size, try increasing it',
  ])('recognises %s', (text) => expect(isContextOverflow(failed(text))).toBe(true));

  it.each(['openai: rate limited (HTTP 429): slow down', 'anthropic: request rejected (HTTP 400): messages: text content blocks must be non-empty', 'server error (HTTP 500): oops'])(
    'leaves %s alone',
    (text) => expect(isContextOverflow(failed(text))).toBe(false),
  );
});

describe('compaction hooks', () => {
  it('gives beforeCompact a copied preparation and lets it veto', async () => {
    const { agent, model } = await withHistory();
    const seen: CompactionPreparation[] = [];
    tapHook(agent.hooks.beforeCompact, 'policy', async (preparation: CompactionPreparation) => {
      seen.push(preparation);
      preparation.messages.length = 0;
      return { cancel: true, reason: 'not now' };
    });
    const before = agent.messages;
    expect(await agent.compact('focus')).toMatchObject({ compacted: false, reason: 'vetoed', message: expect.stringContaining('not now') });
    expect(agent.messages).toEqual(before);
    expect(model.callCount).toBe(4);
    expect(seen[0]).toMatchObject({ originalCount: before.length, automatic: false, reason: 'manual', instructions: 'focus' });
  });

  it('takes one custom summary without a model call and reports the commit', async () => {
    const { agent, model } = await withHistory();
    const committed: CompactionCommitted[] = [];
    tapHook(agent.hooks.beforeCompact, 'custom', async () => ({ summary: 'custom summary', details: { files: ['src/app.ts'] } }));
    tapHook(agent.hooks.compact, 'observer', async (event: CompactionCommitted) => void committed.push(event));
    const result = await agent.compact();
    expect(result).toMatchObject({ compacted: true, custom: true, summary: 'custom summary', details: { files: ['src/app.ts'] } });
    expect(model.callCount).toBe(4);
    expect(committed).toEqual([expect.objectContaining({ summary: 'custom summary', automatic: false, before: 8, after: agent.messages.length })]);
  });

  it('fails closed when a beforeCompact tap throws, and ignores a failing compact observer', async () => {
    const broken = await withHistory();
    tapHook(broken.agent.hooks.beforeCompact, 'broken', async () => {
      throw new Error('policy store offline');
    });
    const before = broken.agent.messages;
    await expect(broken.agent.compact()).rejects.toMatchObject({ code: 'HOOK_FAILED', message: expect.stringContaining('policy store offline') });
    expect(broken.agent.messages).toEqual(before);
    expect(broken.model.callCount).toBe(4);

    const observed = await withHistory([{ text: 'SUMMARY' }]);
    tapHook(observed.agent.hooks.compact, 'broken', async () => {
      throw new Error('observer down');
    });
    expect(await observed.agent.compact()).toMatchObject({ compacted: true, summary: 'SUMMARY' });
    expect(observed.agent.compactionState).toMatchObject({ summary: 'SUMMARY' });
  });

  it('fails closed on two competing summaries, an oversized one or a bad cut', async () => {
    for (const taps of [
      [{ summary: 'one' }, { summary: 'two' }],
      [{ summary: 'x'.repeat(256 * 1024 + 1) }],
      [{ summary: 'ok', firstKeptIndex: 1 }],
    ]) {
      const { agent, model } = await withHistory();
      taps.forEach((answer, index) => tapHook(agent.hooks.beforeCompact, `tap-${index}`, async () => answer));
      const before = agent.messages;
      await expect(agent.compact()).rejects.toMatchObject({ code: 'HOOK_FAILED' });
      expect(agent.messages).toEqual(before);
      expect(model.callCount).toBe(4);
    }
  });
});

describe('automatic compaction', () => {
  it('stays off by default, even past the window', async () => {
    const { agent, model } = scripted([{ text: long('a') }, { text: long('b') }, { text: long('c') }], {}, {}, { contextWindow: 100 });
    for (const prompt of [long('1'), long('2'), long('3')]) await agent.prompt(prompt).result();
    expect(model.callCount).toBe(3);
    expect(agent.compactionState).toBeUndefined();
  });

  it('compacts before the model call once the context nears the window', async () => {
    const { agent, model } = scripted(
      [{ text: long('a') }, { text: long('b') }, { text: 'AUTO SUMMARY' }, { text: 'c' }],
      { compaction: { auto: true, reserveTokens: 200, keepRecentTokens: 10 } },
      {},
      { contextWindow: 700 },
    );
    await agent.prompt(long('1')).result();
    await agent.prompt(long('2')).result();
    const events: AgentEvent[] = [];
    agent.subscribe((event) => events.push(event));
    await agent.prompt(long('3')).result();
    expect(events.filter((event) => event.type.startsWith('compaction'))).toEqual([
      { type: 'compaction_start', reason: 'threshold' },
      expect.objectContaining({ type: 'compaction_end', reason: 'threshold', result: expect.objectContaining({ compacted: true }) }),
    ]);
    expect(requestTexts(model, 3)[0]).toContain('AUTO SUMMARY');
    expect(agent.messages.at(-1), JSON.stringify(agent.messages.at(-1))).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'c' }] });
  });

  it('compacts and retries once on a provider context overflow, dropping the failed message', async () => {
    const overflow = { error: 'anthropic: request rejected (HTTP 400): prompt is too long: 210000 tokens > 200000 maximum' };
    const { agent, model } = scripted([{ text: long('a') }, { text: long('b') }, overflow, { text: 'OVERFLOW SUMMARY' }, { text: 'fits now' }], {
      compaction: { retryOnOverflow: true, keepRecentTokens: 10 },
    });
    await agent.prompt(long('1')).result();
    await agent.prompt(long('2')).result();
    const result = await agent.prompt(long('3')).result();
    expect(result.status).toBe('completed');
    expect(model.callCount).toBe(5);
    expect(requestTexts(model, 4)[0]).toContain('OVERFLOW SUMMARY');
    expect(agent.messages.some((message: Message) => message.role === 'assistant' && message.stopReason === 'error')).toBe(false);
  });

  it('does not retry a second overflow in the same run', async () => {
    const overflow = { error: 'openai: request rejected (HTTP 400): context_length_exceeded' };
    const { agent, model } = scripted([{ text: long('a') }, { text: long('b') }, overflow, { text: 'S' }, overflow], {
      compaction: { retryOnOverflow: true, keepRecentTokens: 10 },
    });
    await agent.prompt(long('1')).result();
    await agent.prompt(long('2')).result();
    const result = await agent.prompt(long('3')).result();
    expect(result).toMatchObject({ status: 'error', errorMessage: expect.stringContaining('context_length_exceeded') });
    expect(model.callCount).toBe(5);
  });
});

describe('compaction.archive', () => {
  it('archives the complete history before the summary request, numbered by generation', async () => {
    const archived: Array<{ generation: number; messages: Message[]; callsSoFar: number }> = [];
    const holder: { model?: { callCount: number } } = {};
    const archive = async (entry: { generation: number; messages: Message[] }) => {
      archived.push({ generation: entry.generation, messages: entry.messages, callsSoFar: holder.model!.callCount });
    };
    const { agent, model } = await withHistory([{ text: 'S1' }, { text: long('answer four') }, { text: 'S2' }], { compaction: { keepRecentTokens: 50, archive } });
    holder.model = model;
    const before = agent.messages;
    await agent.compact();
    // Archived before the 5th model call (the summary request) was made.
    expect(archived).toEqual([{ generation: 1, messages: before, callsSoFar: 4 }]);
    await agent.prompt(long('fourth')).result();
    const second = agent.messages;
    await agent.compact();
    expect(archived.map((entry) => entry.generation)).toEqual([1, 2]);
    expect(archived[1]!.messages).toEqual(second);
  });

  it('fails the compaction, with no summary request and the history unchanged, when the archive throws', async () => {
    const archive = async () => {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, 'the history is too big to archive', { hint: 'keep less' });
    };
    const { agent, model } = await withHistory([{ text: 'NEVER' }], { compaction: { keepRecentTokens: 50, archive } });
    const before = agent.messages;
    await expect(agent.compact()).rejects.toMatchObject({ code: 'LIMIT_EXCEEDED', message: expect.stringContaining('archiving the history before compaction #1 failed: the history is too big to archive') });
    expect(model.callCount).toBe(4);
    expect(agent.messages).toEqual(before);
    expect(agent.compactionState).toBeUndefined();
  });

  it('waits for the archive when cancelled meanwhile, then stops before the summary', async () => {
    const gate = deferred();
    let finished = false;
    const archive = async () => {
      await gate.promise;
      finished = true;
    };
    const { agent, model } = await withHistory([{ text: 'NEVER' }], { compaction: { keepRecentTokens: 50, archive } });
    const before = agent.messages;
    const compaction = agent.compact();
    await new Promise((resolve) => setImmediate(resolve));
    agent.abort();
    gate.resolve();
    await expect(compaction).rejects.toMatchObject({ code: 'ABORTED' });
    expect(finished).toBe(true);
    expect(model.callCount).toBe(4);
    expect(agent.messages).toEqual(before);
  });

  it('refuses an archive that is not a function', () => {
    expect(() => new Agent(createFauxStreamFn({ responses: [] }), { model: 'faux/test' }, { compaction: { archive: 'no' as never } })).toThrow(/compaction.archive must be a function/);
  });
});

describe('snapshots of a compacted agent', () => {
  it('carry the compaction state, and a mismatched summary fails closed', async () => {
    const { agent } = await withHistory([{ text: 'SNAP SUMMARY' }]);
    await agent.compact();
    const snapshot = agent.dump();
    expect(snapshot.compaction).toEqual({ summary: 'SNAP SUMMARY', count: 1 });
    const copy = new Agent(createFauxStreamFn({ responses: [] }), { model: 'faux/test' });
    copy.restore(snapshot);
    expect(copy.compactionState).toEqual({ summary: 'SNAP SUMMARY', count: 1 });
    expect(copy.messages).toEqual(agent.messages);
    const tampered = { ...snapshot, compaction: { summary: 'another summary', count: 1 } };
    expect(() => copy.restore(tampered)).toThrow(/compaction summary does not match/);
  });
});
