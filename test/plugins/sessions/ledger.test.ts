import os from 'node:os';
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { LIMITS } from '../../../core/index.js';
import { failure, openTestStoreOn, sessionWith } from './helpers.js';
import { describeStores } from '../../support/stores.js';

const usage = (input: number, output: number, cacheRead = 0) => ({ input, output, cacheRead, cacheWrite: 0 });

describeStores('usage ledger', (kind) => {
  it('sums calls per model with filters; cost stays null when no call of that model had a price', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, []);
    await store.ensureGroup('other');
    await store.recordUsage({ group: 'main', sessionId: id, model: 'openai/a', usage: usage(100, 10, 5), cost: 0.5, durationMs: 1000, at: 10 });
    await store.recordUsage({ group: 'main', sessionId: id, model: 'openai/a', usage: usage(200, 20), cost: null, durationMs: 500, at: 20 });
    await store.recordUsage({ group: 'main', sessionId: null, model: 'local/b', usage: usage(7, 3), cost: null, durationMs: 50, at: 30 });
    await store.recordUsage({ group: 'other', sessionId: null, model: 'openai/a', usage: usage(1, 1), cost: 1, durationMs: 1, at: 40 });
    expect(await store.usageSummary({ group: 'main' })).toEqual([
      { by: 'model', key: 'local/b', model: 'local/b', calls: 1, unpricedCalls: 1, input: 7, output: 3, cacheRead: 0, cacheWrite: 0, cost: null, durationMs: 50 },
      { by: 'model', key: 'openai/a', model: 'openai/a', calls: 2, unpricedCalls: 1, input: 300, output: 30, cacheRead: 5, cacheWrite: 0, cost: 0.5, durationMs: 1500 },
    ]);
    expect((await store.usageSummary({ sessionId: id })).map((t) => t.calls)).toEqual([2]);
    expect((await store.usageSummary({ since: 30 })).map((t) => [t.model, t.calls])).toEqual([
      ['local/b', 1],
      ['openai/a', 1],
    ]);
    expect((await store.usageSummary()).find((t) => t.model === 'openai/a')!.cost).toBe(1.5);
    expect((await failure(store.recordUsage({ group: 'main', sessionId: null, model: 'x', usage: usage(-1, 0), cost: null, durationMs: 0, at: 1 }))).code).toBe('INVALID_ARGUMENT');
    expect((await failure(store.recordUsage({ group: 'nope', sessionId: null, model: 'x', usage: usage(1, 0), cost: null, durationMs: 0, at: 1 }))).code).toBe('NOT_FOUND');
  });

  it('sums by origin (schedule job, goal, child) and by group, leaving out the calls of other origins', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, []);
    await store.recordUsage({ group: 'main', sessionId: id, model: 'openai/a', usage: usage(100, 10), cost: 0.25, durationMs: 1, at: 10, origin: { kind: 'goal', id: 'g1' } });
    await store.recordUsage({ group: 'main', sessionId: id, model: 'openai/a', usage: usage(100, 10), cost: 0.25, durationMs: 1, at: 20, origin: { kind: 'goal', id: 'g1' } });
    await store.recordUsage({ group: 'main', sessionId: id, model: 'openai/a', usage: usage(50, 5), cost: null, durationMs: 1, at: 30, origin: { kind: 'schedule', id: 'job-1' } });
    await store.recordUsage({ group: 'main', sessionId: id, model: 'openai/a', usage: usage(1, 1), cost: 0.1, durationMs: 1, at: 40, origin: { kind: 'prompt', id: null } });
    expect((await store.usageSummary({ by: 'goal' })).map((t) => [t.key, t.calls, t.cost])).toEqual([['g1', 2, 0.5]]);
    expect((await store.usageSummary({ by: 'schedule' })).map((t) => [t.key, t.calls, t.cost, t.unpricedCalls])).toEqual([['job-1', 1, null, 1]]);
    expect(await store.usageSummary({ by: 'child' })).toEqual([]);
    expect((await store.usageSummary({ by: 'group', since: 20 })).map((t) => [t.key, t.calls])).toEqual([['main', 3]]);
  });
});

describeStores('input keys', (kind) => {
  it('records a key once per group: a repeat is reported, another group has its own keys', async () => {
    const { store } = await openTestStoreOn(kind);
    const id = await sessionWith(store, []);
    await store.ensureGroup('other');
    const otherSession = await store.createSession('other', { model: 'm' });
    expect(await store.recordInputKey('main', 'k-1', id)).toBe(true);
    expect(await store.recordInputKey('main', 'k-1', id)).toBe(false);
    expect(await store.recordInputKey('other', 'k-1', otherSession.id)).toBe(true);
    expect((await failure(store.recordInputKey('main', 'x'.repeat(LIMITS.clawIdempotencyKeyBytes + 1), id))).code).toBe('LIMIT_EXCEEDED');
    expect((await failure(store.recordInputKey('main', '', id))).code).toBe('INVALID_ARGUMENT');
  });
});

describeStores('group leases', (kind) => {
  const host = os.hostname();
  const owner = (ownerId: string, pid = process.pid, where = host) => ({ ownerId, pid, host: where, info: `socket of ${ownerId}` });

  function deadPid(): number {
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    return Number(child.stdout.toString());
  }

  it('takes a free lease, renews it, and refuses another live owner naming the holder', async () => {
    const { store } = await openTestStoreOn(kind);
    await store.ensureGroup('main');
    const first = await store.acquireLease('main', owner('gw-1'), 1_000);
    expect(first).toMatchObject({ group: 'main', ownerId: 'gw-1', pid: process.pid, expiresAt: 1_000 + LIMITS.clawLeaseSeconds * 1000 });
    expect((await store.acquireLease('main', owner('gw-1'), 2_000)).expiresAt).toBe(2_000 + LIMITS.clawLeaseSeconds * 1000);
    const conflict = await failure(store.acquireLease('main', owner('gw-2'), 3_000));
    expect(conflict.code).toBe('CONFLICT');
    expect(conflict.message).toContain(`pid ${process.pid} on ${host} (socket of gw-1)`);
    expect((await store.getLease('main'))!.ownerId).toBe('gw-1');
    // a holder on another host cannot be probed: it is live until it expires
    await store.releaseLeases('gw-1');
    expect(await store.getLease('main')).toBeUndefined();
    await store.acquireLease('main', owner('remote', 1, 'elsewhere.example'), 4_000);
    expect((await failure(store.acquireLease('main', owner('gw-2'), 5_000))).message).toContain('on elsewhere.example');
  });

  it('takes over a lease whose holder on this host is a dead process', async () => {
    const { store } = await openTestStoreOn(kind);
    await store.ensureGroup('main');
    await store.acquireLease('main', owner('crashed', deadPid()), 1_000);
    expect((await store.acquireLease('main', owner('gw-2'), 2_000)).ownerId).toBe('gw-2');
  });

  it('renews every unexpired lease of an owner in one call and names them; an expired or foreign one is not renewed', async () => {
    const { store } = await openTestStoreOn(kind);
    for (const group of ['a', 'b', 'c']) await store.ensureGroup(group);
    await store.acquireLease('a', owner('gw-1'), 1_000, 1_000);
    await store.acquireLease('b', owner('gw-1'), 500, 1_000);
    await store.acquireLease('c', owner('gw-2'), 1_000, 1_000);
    expect(await store.renewLeases('gw-1', 1_600, 1_000)).toEqual(['a']);
    expect((await store.getLease('a'))!.expiresAt).toBe(2_600);
    expect((await store.getLease('b'))!.expiresAt).toBe(1_500);
    expect((await store.getLease('c'))!.expiresAt).toBe(2_000);
  });

  it('takes over an expired lease', async () => {
    const { store } = await openTestStoreOn(kind);
    await store.ensureGroup('main');
    await store.acquireLease('main', owner('remote', 1, 'elsewhere.example'), 1_000);
    const expiry = 1_000 + LIMITS.clawLeaseSeconds * 1000;
    expect((await failure(store.acquireLease('main', owner('gw-2'), expiry - 1))).code).toBe('CONFLICT');
    expect((await store.acquireLease('main', owner('gw-2'), expiry)).ownerId).toBe('gw-2');
  });
});
