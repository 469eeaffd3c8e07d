/** Durable child records on a real SQLite claw store: journaled inputs, usage in the ledger, chunked transcripts, and recovery after a crash. */
import { describe, expect, it } from 'vitest';
import { XdogError, type Message } from '../../../core/index.js';
import { ChildRecordStore, TRANSCRIPT_CHUNK_CHARS, chunkText, type ChildSpec } from '../../../plugins/children/index.js';
import { openTestStore } from '../sessions/helpers.js';

const spec = (task: string): ChildSpec => ({
  task,
  access: 'read-only',
  inheritContext: false,
  label: 'finder',
  instructions: undefined,
  tools: ['grep'],
  model: undefined,
  thinking: undefined,
  timeoutSeconds: 60,
  maxModelCalls: 4,
  maxTokens: 1000,
});

async function setup(file?: string) {
  const opened = await openTestStore(file);
  await opened.store.ensureGroup('main');
  await opened.store.ensureGroup('other');
  return { ...opened, children: new ChildRecordStore({ store: opened.store, clock: opened.clock }) };
}

async function rejection(promise: Promise<unknown>): Promise<XdogError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(XdogError.is(error), String(error)).toBe(true);
  return error as XdogError;
}

describe('ChildRecordStore', () => {
  it('refuses a stored config that is not JSON as STORE_CORRUPT naming the store and the child', async () => {
    const s = await setup();
    await s.children.create({ id: 'c-bad', group: 'main', parentSessionId: null, spec: spec('anything') });
    await s.dataSource.query("UPDATE claw_children SET config = '{cut' WHERE id = 'c-bad'");
    for (const read of [s.children.get('main', 'c-bad'), s.children.list('main')]) {
      const error = await rejection(read);
      expect(error.code).toBe('STORE_CORRUPT');
      expect(error.message).toContain(`the claw store ${s.file} is damaged: child c-bad: the stored config is not JSON`);
    }
  });

  it('keeps a child with its config, journals inputs, and records its ending with the transcript', async () => {
    const s = await setup();
    const created = await s.children.create({ id: 'c-1', group: 'main', parentSessionId: null, spec: spec('find TODOs') });
    expect(created).toMatchObject({ id: 'c-1', group: 'main', status: 'running', label: 'finder', task: 'find TODOs', access: 'read-only', result: null, endedAt: null });
    expect(created.spec.tools).toEqual(['grep']);

    const steer = await s.children.journalInput('main', 'c-1', 'steer', 'only in src/');
    const followUp = await s.children.journalInput('main', 'c-1', 'followUp', 'then count them');
    await s.children.markConsumed('c-1', [steer.id]);
    expect((await s.children.inputs('main', 'c-1')).map((input) => [input.lane, input.status])).toEqual([['steer', 'consumed'], ['followUp', 'accepted']]);

    const transcript: Message[] = [{ role: 'user', content: 'find TODOs', timestamp: 1 }];
    const ended = await s.children.finish('c-1', { status: 'completed', result: '3 TODOs', error: null, transcript });
    expect(ended).toMatchObject({ status: 'completed', result: '3 TODOs' });
    expect(ended.endedAt).not.toBeNull();
    expect(await s.children.transcript('main', 'c-1')).toEqual(transcript);
    // An ended child takes no input, and keeps its first ending.
    expect((await rejection(s.children.journalInput('main', 'c-1', 'steer', 'more'))).code).toBe('INVALID_STATE');
    expect((await s.children.finish('c-1', { status: 'failed', result: null, error: 'late', transcript: [] })).status).toBe('completed');
    expect(followUp.status).toBe('accepted');
  });

  it('never shows one group the children of another', async () => {
    const s = await setup();
    await s.children.create({ id: 'c-1', group: 'main', parentSessionId: null, spec: spec('a') });
    expect(await s.children.list('other')).toEqual([]);
    expect((await rejection(s.children.get('other', 'c-1'))).code).toBe('NOT_FOUND');
    expect((await rejection(s.children.journalInput('other', 'c-1', 'steer', 'x'))).code).toBe('NOT_FOUND');
  });

  it("attributes each model call to the child in the group's usage ledger", async () => {
    const s = await setup();
    const child = await s.children.create({ id: 'c-1', group: 'main', parentSessionId: null, spec: spec('a') });
    await s.children.create({ id: 'c-2', group: 'main', parentSessionId: null, spec: spec('b') });
    const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0 };
    await s.children.recordUsage(child, { model: 'faux/m', usage, cost: null, durationMs: 5 });
    await s.children.recordUsage(child, { model: 'faux/m', usage, cost: 0.01, durationMs: 5 });
    expect(await s.children.usage('main', 'c-1')).toEqual({ calls: 2, input: 200, output: 40 });
    expect(await s.children.usage('main', 'c-2')).toEqual({ calls: 0, input: 0, output: 0 });
    expect(await s.children.get('main', 'c-1')).toMatchObject({ modelCalls: 2, tokens: 240 });
    // The group's ledger holds them too.
    const totals = await s.store.usageSummary({ group: 'main' });
    expect(totals.map((row) => row.calls)).toEqual([2]);
  });

  it('stores a transcript far larger than one chunk whole, across chunks', async () => {
    const s = await setup();
    await s.children.create({ id: 'c-1', group: 'main', parentSessionId: null, spec: spec('a') });
    const big = '🙂x'.repeat(TRANSCRIPT_CHUNK_CHARS);
    const transcript: Message[] = [{ role: 'user', content: big, timestamp: 1 }];
    await s.children.finish('c-1', { status: 'completed', result: 'ok', error: null, transcript });
    expect(await s.children.transcript('main', 'c-1')).toEqual(transcript);
    const [row] = await s.dataSource.query(`SELECT transcript_chunks AS chunks FROM claw_children WHERE id = 'c-1'`);
    expect(row.chunks).toBeGreaterThan(2);
  });

  it('splits text without breaking a surrogate pair', () => {
    const chunks = chunkText('a🙂b🙂', 2);
    expect(chunks.join('')).toBe('a🙂b🙂');
    for (const chunk of chunks) expect(chunk).toBe(chunk.normalize());
    expect(chunks).toEqual(['a', '🙂', 'b', '🙂']);
  });

  it('after a restart marks a running child interrupted, never running, with its unconsumed inputs uncertain', async () => {
    const first = await setup();
    await first.children.create({ id: 'c-1', group: 'main', parentSessionId: null, spec: spec('a') });
    await first.children.create({ id: 'c-2', group: 'main', parentSessionId: null, spec: spec('b') });
    await first.children.finish('c-2', { status: 'completed', result: 'done', error: null, transcript: [] });
    const consumed = await first.children.journalInput('main', 'c-1', 'steer', 'seen');
    await first.children.markConsumed('c-1', [consumed.id]);
    await first.children.journalInput('main', 'c-1', 'followUp', 'maybe seen');
    await first.dataSource.destroy();

    const second = await setup(first.file);
    expect(await second.children.recoverInterrupted(['main'])).toEqual(['c-1']);
    const child = await second.children.get('main', 'c-1');
    expect(child.status).toBe('interrupted');
    expect(child.error).toMatch(/not run again/);
    expect((await second.children.inputs('main', 'c-1')).map((input) => input.status)).toEqual(['consumed', 'uncertain']);
    expect((await second.children.get('main', 'c-2')).status).toBe('completed');
    expect(await second.children.runningCount('main')).toBe(0);
    expect(await second.children.recoverInterrupted(['main'])).toEqual([]);
  });

  it('closes only an ended child, with everything it kept', async () => {
    const s = await setup();
    await s.children.create({ id: 'c-1', group: 'main', parentSessionId: null, spec: spec('a') });
    expect((await rejection(s.children.close('main', 'c-1'))).code).toBe('BUSY');
    await s.children.journalInput('main', 'c-1', 'steer', 'x');
    await s.children.finish('c-1', { status: 'cancelled', result: null, error: 'cancelled', transcript: [{ role: 'user', content: 'a', timestamp: 1 }] });
    await s.children.close('main', 'c-1');
    expect(await s.children.list('main')).toEqual([]);
    const [row] = await s.dataSource.query('SELECT (SELECT COUNT(*) FROM claw_child_inputs) AS inputs, (SELECT COUNT(*) FROM claw_child_transcript_chunks) AS chunks');
    expect(row).toEqual({ inputs: 0, chunks: 0 });
  });
});
