/** The run log on a real claw store (SQLite and PostgreSQL): what a row says, paging, filtering, and the retention bounds. */
import { afterEach, expect, it } from 'vitest';
import type { RunEndedInfo } from '../../../core/index.js';
import { RunLog, describeSource } from '../../../plugins/claw-runs/index.js';
import { openSessionStore, type SessionStore } from '../../../plugins/sessions/index.js';
import { describeStores, openTestDataSource, type TestDataSource } from '../../support/stores.js';

const DAY_MS = 24 * 3600 * 1000;

function ended(group: string, inputId: string, startedAt: number, source: RunEndedInfo['source'] = { kind: 'prompt', key: `k-${inputId}` }): RunEndedInfo {
  return { group, sessionId: '00000000-0000-4000-8000-000000000001', inputId, source, status: 'completed', startedAt, endedAt: startedAt + 5 };
}

it('names where an input came from', () => {
  expect(describeSource({ kind: 'prompt', key: 'cli-1' })).toEqual({ source: 'prompt', sourceId: 'cli-1' });
  expect(describeSource({ kind: 'prompt', key: 'channel:irc:abc' })).toEqual({ source: 'channel', sourceId: 'channel:irc:abc' });
  expect(describeSource({ kind: 'system', origin: 'schedule', id: 'job-1', name: 'standup' })).toEqual({ source: 'schedule', sourceId: 'job-1' });
  expect(describeSource({ kind: 'system', origin: 'children', id: 'c-1' })).toEqual({ source: 'system', sourceId: 'children:c-1' });
});

describeStores('RunLog', (kind) => {
  let opened: TestDataSource | undefined;
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
  });

  async function setup(): Promise<SessionStore> {
    opened = await openTestDataSource(kind);
    const store = openSessionStore(opened.dataSource);
    for (const group of ['main', 'other']) await store.ensureGroup(group);
    return store;
  }

  it('records a run with its source, owner, times and status, and lists newest first by group and page', async () => {
    const store = await setup();
    const log = new RunLog(store);
    await log.record(ended('main', 'p1', 1_000), 'host:1');
    await log.record({ ...ended('other', 'y2', 2_000, { kind: 'system', origin: 'schedule', id: 'job-9' }), status: 'error', errorMessage: 'model failed' }, 'host:2');
    await log.record(ended('main', 'p3', 3_000), 'host:1');

    const all = await log.list({ limit: 10 });
    expect(all.map((run) => run.inputId)).toEqual(['p3', 'y2', 'p1']);
    expect(all[1]).toMatchObject({ group: 'other', source: 'schedule', sourceId: 'job-9', owner: 'host:2', status: 'error', error: 'model failed', startedAt: 2_000, endedAt: 2_005 });
    expect(all[2]).toMatchObject({ group: 'main', source: 'prompt', sourceId: 'k-p1', error: null, startedAt: 1_000, endedAt: 1_005 });
    expect(typeof all[0]!.id).toBe('number');

    expect((await log.list({ group: 'main', limit: 10 })).map((run) => run.inputId)).toEqual(['p3', 'p1']);
    const [first] = await log.list({ limit: 1 });
    expect((await log.list({ limit: 10, beforeId: first!.id })).map((run) => run.inputId)).toEqual(['y2', 'p1']);
    expect(await log.list({ group: 'main', limit: 10, beforeId: all[2]!.id })).toEqual([]);
  });

  it("each record prunes its group's rows past the row bound and the age bound (in the same commit), never another group's", async () => {
    const store = await setup();
    const log = new RunLog(store, { days: 2, rowsPerGroup: 3, pruneEvery: 1 });
    await log.record(ended('other', 'old', 0), 'host:1');
    for (let index = 1; index <= 5; index++) await log.record(ended('main', `p${index}`, index * 1_000), 'host:1');
    expect((await log.list({ group: 'main', limit: 10 })).map((run) => run.inputId)).toEqual(['p5', 'p4', 'p3']);
    expect(await log.prune('main', 6_000)).toBe(0);
    // Older than two days: gone; other's old row stays until other is pruned.
    await log.record(ended('main', 'late', 3 * DAY_MS), 'host:1');
    expect((await log.list({ group: 'main', limit: 10 })).map((run) => run.inputId)).toEqual(['late']);
    expect((await log.list({ group: 'other', limit: 10 })).map((run) => run.inputId)).toEqual(['old']);
    expect(await log.prune('other', 3 * DAY_MS)).toBe(1);
  });

  it("prunes a group's rows with its first run recorded and then every pruneEvery-th, so a group holds at most pruneEvery - 1 rows over the bound", async () => {
    const store = await setup();
    const log = new RunLog(store, { days: 2, rowsPerGroup: 2, pruneEvery: 4 });
    const mainRuns = async () => (await log.list({ group: 'main', limit: 50 })).map((run) => run.inputId);
    for (let index = 1; index <= 3; index++) await log.record(ended('main', `old${index}`, index), 'host:1');
    // A new log (another process) prunes with its first record.
    const next = new RunLog(store, { days: 2, rowsPerGroup: 2, pruneEvery: 4 });
    await next.record(ended('main', 'p1', 10), 'host:1');
    expect(await mainRuns()).toEqual(['p1', 'old3']);
    for (let index = 2; index <= 4; index++) await next.record(ended('main', `p${index}`, 10 + index), 'host:1');
    expect(await mainRuns()).toEqual(['p4', 'p3', 'p2', 'p1', 'old3']);
    await next.record(ended('main', 'p5', 20), 'host:1');
    expect(await mainRuns()).toEqual(['p5', 'p4']);
  });
});
