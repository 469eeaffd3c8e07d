/**
 * Supervised children compact, archiving their complete history first: on a
 * real SQLite store, the archive is in the store when the summary request
 * reaches the model; an archive over the limit fails the compaction, and the
 * child goes on with its whole history; a runtime without archives never
 * compacts a child.
 */
import { describe, expect, it } from 'vitest';
import { LIMITS, summaryFromMessage, type AgentTool, type CompactionConfig, type Message } from '../../../core/index.js';
import { createFauxStreamFn, type FauxRequest, type FauxResponse } from '../../../plugins/faux/index.js';
import { ChildRecordStore, DurableChildRuntime, MemoryChildRuntime, createSdkChildHost, resolveChildSpec } from '../../../plugins/children/index.js';
import { openTestStore } from '../sessions/helpers.js';

const long = (label: string) => `${label} ${'lorem ipsum '.repeat(30)}`;
const usage = { input: 10, output: 5 };

/** Three finished turns of the parent, about 200 estimated tokens each: more than the child's window holds. */
const parentTurns = (count = 3): Message[] =>
  Array.from({ length: count }, (_, index) => [
    { role: 'user' as const, content: long(`parent question ${index + 1}`), timestamp: 1 },
    { role: 'assistant' as const, content: [{ type: 'text' as const, text: long(`parent answer ${index + 1}`) }], model: 'faux/test', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, stopReason: 'stop' as const, timestamp: 1 },
  ]).flat();

const isSummaryRequest = (request: FauxRequest): boolean => {
  const last = request.messages.at(-1)!;
  const text = typeof last.content === 'string' ? last.content : last.content.map((part) => ('text' in part ? part.text : '')).join('');
  return last.role === 'user' && text.trimStart().startsWith('<conversation>');
};

/** A 4.5 MiB tool result: the child's history is then over the archive limit. */
const bigTool: AgentTool = {
  name: 'big',
  description: 'returns a lot of text',
  parameters: { type: 'object', properties: {} },
  execute: async () => ({ content: [{ type: 'text', text: 'x'.repeat(LIMITS.childCompactionArchiveBytes + 512 * 1024) }] }),
};

const policy: CompactionConfig = { auto: true, contextWindow: 400, reserveTokens: 50, keepRecentTokens: 10 };

async function setup(respond: (request: FauxRequest, records: ChildRecordStore) => FauxResponse | Promise<FauxResponse>) {
  const opened = await openTestStore();
  await opened.store.ensureGroup('main');
  const records = new ChildRecordStore({ store: opened.store, clock: opened.clock });
  const stream = createFauxStreamFn({ responses: (request) => respond(request, records) });
  const log: string[] = [];
  const runtime = new DurableChildRuntime({
    host: createSdkChildHost({ streamFn: stream, model: 'faux/test', parentTools: () => [bigTool], compaction: policy }),
    records,
    group: 'main',
    log: (line) => log.push(line),
  });
  return { records, runtime, stream, log };
}

describe('children compaction archives', () => {
  it('archives the complete history in the store before the summary request, and the child goes on from the summary', async () => {
    // What the store held when the summary request reached the model.
    const atSummary: Array<{ generation: number; messageCount: number }> = [];
    const s = await setup(async (request, records) => {
      if (isSummaryRequest(request)) {
        const [child] = await records.list('main');
        atSummary.push(...(await records.compactionArchives('main', child!.id)).map(({ generation, messageCount }) => ({ generation, messageCount })));
        return { text: 'CHILD SUMMARY', usage };
      }
      return { text: 'child done', usage };
    });
    const context = parentTurns();
    const spec = resolveChildSpec({ action: 'spawn', task: 'sum it up', config: { inherit_context: true } }, {});
    const child = await s.runtime.spawn(spec, { context });
    const [ended] = await s.runtime.wait([child.id]);
    // Its answer is found after the compaction moved its messages.
    expect(ended).toMatchObject({ status: 'completed', result: 'child done' });

    // The archive was there, whole, when the summary was asked for.
    expect(atSummary).toEqual([{ generation: 1, messageCount: context.length + 1 }]);
    const listed = await s.runtime.compactionArchives(child.id);
    expect(listed.archives).toEqual([{ generation: 1, messageCount: context.length + 1, bytes: expect.any(Number), createdAt: expect.any(Number) }]);
    const archive = await s.runtime.compactionArchive(child.id, 1);
    expect(archive.messages.slice(0, context.length)).toEqual(context);
    expect(archive.messages.at(-1)).toMatchObject({ role: 'user', content: 'sum it up' });
    expect(archive.bytes).toBe(Buffer.byteLength(JSON.stringify(archive.messages)));

    // The inspected history holds the summary; the full one stays archived.
    const transcript = await s.records.transcript('main', child.id);
    expect(summaryFromMessage(transcript[0])).toBe('CHILD SUMMARY');
    expect(transcript.some((message) => JSON.stringify(message.content).includes('parent question 1'))).toBe(false);
    expect(s.log.some((line) => line.includes(`child ${child.id}: compacted (#1`))).toBe(true);
    await expect(s.runtime.compactionArchive(child.id, 2)).rejects.toThrow(`child ${child.id} has no compaction archive #2`);

    // Closing the child forgets its archives with it.
    await s.runtime.close(child.id);
    await expect(s.records.compactionArchives('main', child.id)).rejects.toThrow(/no child/);
    await s.runtime.closeAll('cancelled: the test ended');
  });

  it('fails the compaction when the history is over the archive limit: no summary request, no cut, and the log says so', async () => {
    let summaries = 0;
    const s = await setup((request) => {
      if (isSummaryRequest(request)) {
        summaries++;
        return { text: 'NEVER', usage };
      }
      const last = request.messages.at(-1)!;
      return last.role === 'toolResult' ? { text: 'finished with big', usage } : { toolCalls: [{ name: 'big', arguments: {} }], usage };
    });
    const context = parentTurns(1);
    const spec = resolveChildSpec({ action: 'spawn', task: 'call big', access: 'inherit', config: { inherit_context: true, tools: ['big'] } }, {});
    const child = await s.runtime.spawn(spec, { context });
    const [ended] = await s.runtime.wait([child.id]);
    expect(ended).toMatchObject({ status: 'completed', result: 'finished with big' });
    expect(summaries).toBe(0);
    expect((await s.runtime.compactionArchives(child.id)).archives).toEqual([]);
    // The child went on with its whole history: the parent's turn and the big result are in its transcript, no summary.
    const transcript = await s.records.transcript('main', child.id);
    expect(transcript.slice(0, context.length)).toEqual(context);
    expect(transcript.some((message) => summaryFromMessage(message) !== undefined)).toBe(false);
    expect(transcript.some((message) => message.role === 'toolResult' && message.toolName === 'big')).toBe(true);
    const line = s.log.find((entry) => entry.includes(`child ${child.id}: compaction failed, the child goes on with its full history`));
    expect(line).toContain(`over the ${LIMITS.childCompactionArchiveBytes}-byte archive limit`);
    await s.runtime.closeAll('cancelled: the test ended');
  });

  it('never compacts a child where no archive is kept (the in-memory runtime): the compaction fails explicitly', async () => {
    let summaries = 0;
    const stream = createFauxStreamFn({
      responses: (request) => {
        if (isSummaryRequest(request)) summaries++;
        return { text: 'plain answer', usage };
      },
    });
    const failures: string[] = [];
    // An observer that keeps no archives: the compaction before the first model call fails, naming that.
    const runtime = new MemoryChildRuntime(createSdkChildHost({ streamFn: stream, model: 'faux/test', parentTools: () => [], compaction: policy }), {
      started: (_id, agent) => void agent.subscribe((event) => void (event.type === 'compaction_end' && event.error && failures.push(event.error.message))),
    });
    const record = runtime.spawn(resolveChildSpec({ action: 'spawn', task: 'go', config: { inherit_context: true } }, {}), { context: parentTurns() });
    const [ended] = await runtime.wait([record.id]);
    expect(ended).toMatchObject({ status: 'completed', result: 'plain answer' });
    expect(summaries).toBe(0);
    expect(failures).toEqual([`archiving the history before compaction #1 failed: child ${record.id} needs a compaction, but this host keeps no compaction archives`]);
    await runtime.closeAll();
  });

  it('does not compact a child whose model declares no output reserve and whose host sets none', async () => {
    const stream = createFauxStreamFn({ responses: () => ({ text: 'fine', usage }) });
    // No maxOutputTokens: the faux model's metadata without its output ceiling.
    const metadataless = Object.assign((...args: Parameters<typeof stream>) => stream(...args), { resolveModel: () => ({ id: 'test', provider: 'faux', contextWindow: 400 }) });
    let archived = 0;
    const runtime = new MemoryChildRuntime(createSdkChildHost({ streamFn: metadataless, model: 'faux/test', parentTools: () => [], compaction: { auto: true, keepRecentTokens: 10 } }), {
      archiveCompaction: async () => void archived++,
    });
    const record = runtime.spawn(resolveChildSpec({ action: 'spawn', task: 'go', config: { inherit_context: true } }, {}), { context: parentTurns() });
    const [ended] = await runtime.wait([record.id]);
    expect(ended).toMatchObject({ status: 'completed', result: 'fine' });
    expect(archived).toBe(0);
    expect(stream.requests.length).toBe(1);
    await runtime.closeAll();
  });
});
