/**
 * The worker pool's fair-share decision, and the shared-store parts of
 * several workers (handoff rows, handed-off calls, relayed events) between
 * two store connections standing in for two worker processes, on each store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCodes, XdogError } from '../../../core/index.js';
import { LIMITS } from '../../../core/limits.js';
import { openClawDataSource } from '../../../entities/index.js';
import { Handoffs } from '../../../plugins/claw-gateway/handoff.js';
import { planShare } from '../../../plugins/claw-gateway/index.js';
import type { MethodHandler } from '../../../plugins/claw-gateway/methods.js';
import { Relay } from '../../../plugins/claw-gateway/relay.js';
import { Subscriptions } from '../../../plugins/claw-gateway/subscriptions.js';
import { openWakeups, type Wakeups } from '../../../plugins/claw-gateway/wakeups.js';
import { claimHandoffs, finishHandoff, insertHandoff, insertRelayEvents, moveHandoff, pruneHandoffs, relayEventsAfter, takeAnswer } from '../../../plugins/claw-gateway/worker-store.js';
import { openSessionStore, type LeaseRecord, type SessionStore, type Sql } from '../../../plugins/sessions/index.js';
import { describeStores, openTestDataSource, type TestDataSource } from '../../support/stores.js';

const clock = { now: () => Date.now() };

/** `sql`, counting the statements sent through it. */
function counting(sql: Sql, sent: string[]): Sql {
  return {
    forUpdate: sql.forUpdate,
    all: (text, params) => (sent.push(text), sql.all(text, params)),
    run: (text, params) => (sent.push(text), sql.run(text, params)),
  };
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const lease = (group: string, expiresAt: number): LeaseRecord => ({ group, ownerId: `o-${group}`, pid: 1, host: 'h', info: '', expiresAt });

describe('planShare', () => {
  const configured = ['a', 'b', 'c', 'd', 'e'];
  it('takes free and expired groups up to ceil(groups / live workers)', () => {
    const plan = planShare({ configured, mine: ['a'], leases: [lease('a', 200), lease('b', 200), lease('c', 50)], liveWorkers: 2, idle: new Set(), now: 100 });
    expect(plan).toEqual({ target: 3, acquire: ['c', 'd'], release: [] });
  });
  it('a lone worker takes every group', () => {
    expect(planShare({ configured, mine: [], leases: [], liveWorkers: 1, idle: new Set(), now: 0 }).acquire).toEqual(configured);
  });
  it('gives idle groups back down to its share when it holds more, never busy ones', () => {
    const plan = planShare({ configured, mine: configured, leases: configured.map((group) => lease(group, 200)), liveWorkers: 3, idle: new Set(['b', 'e']), now: 100 });
    expect(plan).toEqual({ target: 2, acquire: [], release: ['b', 'e'] });
    expect(planShare({ configured, mine: configured, leases: [], liveWorkers: 3, idle: new Set(['c']), now: 0 }).release).toEqual(['c']);
  });
  it('holds still at its share', () => {
    expect(planShare({ configured, mine: ['a', 'b'], leases: [], liveWorkers: 3, idle: new Set(['a', 'b']), now: 0 })).toEqual({ target: 2, acquire: [], release: [] });
  });
});

describeStores('worker store', (kind) => {
  let opened: TestDataSource | undefined;
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await opened?.close();
    opened = undefined;
  });

  /** Two connections to one fresh store, as two worker processes have. */
  async function twoWorkers(): Promise<[SessionStore, SessionStore, Wakeups, Wakeups]> {
    opened = await openTestDataSource(kind);
    const second = await openClawDataSource(opened.location);
    const stores = [openSessionStore(opened.dataSource, { clock }), openSessionStore(second, { clock })];
    const wakeups = [await openWakeups(opened.dataSource, () => undefined), await openWakeups(second, () => undefined)];
    cleanups.push(async () => {
      for (const wakeup of wakeups) await wakeup.close();
      for (const store of stores) await store.close();
      await second.destroy();
    });
    return [stores[0]!, stores[1]!, wakeups[0]!, wakeups[1]!];
  }

  it('reads relayed events in batches bounded by bytes as well as rows, the first event always', async () => {
    const [store] = await twoWorkers();
    const big = JSON.stringify('é'.repeat(600 * 1024)); // 1.2 MB of JSON
    const rows = [big, big, '{}', big].map((params) => ({ group: 'g', sessionId: null, method: 'event', params }));
    const ids: number[] = [];
    for (const row of rows) ids.push((await store.withStatement((sql) => insertRelayEvents(sql, [row], 1))).get('g')!);
    const read = (after: number) => store.withRead((sql) => relayEventsAfter(sql, 'g', after, 10, 2 * 1024 * 1024));
    const first = await read(0);
    expect(first.events.map((event) => event.id)).toEqual([ids[0]]);
    expect(first.more).toBe(true);
    expect(first.events[0]!.params).toBe(big);
    const second = await read(ids[0]!);
    expect(second.events.map((event) => event.id)).toEqual([ids[1], ids[2]]);
    const last = await read(ids[2]!);
    expect(last.events.map((event) => event.id)).toEqual([ids[3]]);
    expect(last.more).toBe(false);
  });

  it('claims a handoff once, only for the groups asked: the owner and an abandoning caller never both win', async () => {
    const [store] = await twoWorkers();
    const request = { id: '00000000-0000-4000-8000-000000000001', group: 'g', method: 'prompt', params: '{}', fromWorker: 'w1', createdAt: 1000 };
    const other = { ...request, id: '00000000-0000-4000-8000-000000000002', group: 'h' };
    await store.withStatement((sql) => insertHandoff(sql, request));
    await store.withStatement((sql) => insertHandoff(sql, other));
    expect(await store.withStatement((sql) => claimHandoffs(sql, ['g', 'x'], 10))).toEqual([request]);
    expect(await store.withStatement((sql) => claimHandoffs(sql, ['g'], 10))).toEqual([]);
    expect(await store.withStatement((sql) => moveHandoff(sql, request.id, 'pending', 'abandoned'))).toBe(false);
    // Abandoned first: the owner's claim finds nothing.
    expect(await store.withStatement((sql) => moveHandoff(sql, other.id, 'pending', 'abandoned'))).toBe(true);
    expect(await store.withStatement((sql) => claimHandoffs(sql, ['h'], 10))).toEqual([]);
    expect(await store.withStatement((sql) => takeAnswer(sql, request.id))).toBeUndefined();
    await store.withStatement((sql) => finishHandoff(sql, request.id, { result: '{"ok":true}', error: null }));
    expect(await store.withStatement((sql) => takeAnswer(sql, request.id))).toEqual({ result: '{"ok":true}', error: null });
    // Taken: its row is gone.
    expect(await store.withStatement((sql) => takeAnswer(sql, request.id))).toBeUndefined();
    await store.withStatement((sql) => pruneHandoffs(sql, 2000));
    expect(await store.withStatement((sql) => claimHandoffs(sql, ['h'], 10))).toEqual([]);
  });

  it('hands a call to the owner of its group and returns its answer or its error', async () => {
    const [callerStore, ownerStore, callerWakeups, ownerWakeups] = await twoWorkers();
    await ownerStore.ensureGroup('g');
    const log: string[] = [];
    const caller = new Handoffs({ store: callerStore, clock, wakeups: callerWakeups, workerId: 'w1', owns: () => false, owned: () => [], log: (line) => log.push(line) });
    await expect(caller.call('g', 'echo', { text: 'hi' })).rejects.toMatchObject({ code: ErrorCodes.UNAVAILABLE, message: 'group g has no live owner' });

    await ownerStore.acquireLease('g', { ownerId: 'w2', pid: process.pid, host: 'here', info: '' }, clock.now(), 30_000);
    const owner = new Handoffs({ store: ownerStore, clock, wakeups: ownerWakeups, workerId: 'w2', owns: (group) => group === 'g', owned: () => ['g'], log: (line) => log.push(line) });
    const handlers = new Map<string, MethodHandler>([
      ['echo', async (params) => ({ echoed: params })],
      ['refuse', async () => {
        throw new XdogError(ErrorCodes.STALE, 'the session changed', { hint: 'look again' });
      }],
    ]);
    owner.serve(handlers);
    expect(await caller.call('g', 'echo', { group: 'g', text: 'hi' })).toEqual({ echoed: { group: 'g', text: 'hi' } });
    const refused = await caller.call('g', 'refuse', {}).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(XdogError);
    expect(refused).toMatchObject({ code: ErrorCodes.STALE, message: 'the session changed', hint: 'look again' });
    await expect(caller.call('g', 'echo', { text: 'x'.repeat(LIMITS.clawHandoffBytes) })).rejects.toMatchObject({ code: ErrorCodes.LIMIT_EXCEEDED });
    await owner.drain();
    expect(log).toEqual([]);
  });

  it('relays the events an owner publishes to a worker whose clients follow the group', async () => {
    const [followerStore, ownerStore, followerWakeups, ownerWakeups] = await twoWorkers();
    const local = new Subscriptions(() => undefined);
    const seen: Array<[string, unknown]> = [];
    local.add({ notify: (method, params) => seen.push([method, params]), onClose: () => () => undefined }, 'g');
    const common = { clock, leaseMs: 3000, log: () => undefined };
    const follower = new Relay({ ...common, store: followerStore, wakeups: followerWakeups, workerId: 'w1', subscriptions: local, owns: () => false });
    const owner = new Relay({ ...common, store: ownerStore, wakeups: ownerWakeups, workerId: 'w2', subscriptions: new Subscriptions(() => undefined), owns: (group) => group === 'g' });
    owner.publish('g', null, 'event', { n: 0 }); // nobody follows yet: not relayed
    await owner.close();
    await follower.tick();
    await owner.refreshInterest();
    for (let n = 1; n <= 3; n++) owner.publish('g', 's1', 'event', { n });
    owner.publish('other', null, 'event', { n: 9 });
    await owner.close();
    const deadline = Date.now() + 10_000;
    while (seen.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual([1, 2, 3].map((n) => ['event', { n }]));
  });

  it('a handoff, its answer and relayed events are each one statement that wakes the worker concerned', async () => {
    const [callerStore, ownerStore, callerWakeups, ownerWakeups] = await twoWorkers();
    const woken: string[] = [];
    for (const [wakeups, channel] of [[ownerWakeups, 'claw_handoff'], [callerWakeups, 'claw_handoff_done'], [callerWakeups, 'claw_relay']] as const) {
      wakeups.on(channel, async (targets) => {
        for (const target of targets ?? []) woken.push(`${channel} ${target}`);
      });
    }
    // A NOTIFY sent before its LISTEN reached the server is never delivered.
    await Promise.all([ownerWakeups.listening(), callerWakeups.listening()]);
    const sent: string[] = [];
    const request = { id: '00000000-0000-4000-8000-000000000003', group: 'g', method: 'prompt', params: '{}', fromWorker: 'w1', createdAt: 1000 };
    await callerStore.withStatement((sql) => insertHandoff(counting(sql, sent), request, callerWakeups.along('claw_handoff', 'g')));
    expect(await ownerStore.withStatement((sql) => claimHandoffs(sql, ['g'], 10))).toEqual([request]);
    await ownerStore.withStatement((sql) => finishHandoff(counting(sql, sent), request.id, { result: '{}', error: null }, ownerWakeups.along('claw_handoff_done', request.id)));
    const events = [{ group: 'g', sessionId: null, method: 'event', params: '{}' }, { group: 'h', sessionId: null, method: 'event', params: '{}' }];
    const highest = await ownerStore.withStatement((sql) => insertRelayEvents(counting(sql, sent), events, 1, ownerWakeups.along('claw_relay', 'g\nh')));
    expect([...highest.keys()].sort()).toEqual(['g', 'h']);
    // Three writes, three statements: no NOTIFY of their own.
    expect(sent).toHaveLength(3);
    if (kind === 'postgres') {
      const expected = ['claw_handoff g', `claw_handoff_done ${request.id}`, 'claw_relay g', 'claw_relay h'];
      await until('the wake-ups', () => expected.every((line) => woken.includes(line)));
      // One wake-up per write, however many rows it returned.
      expect(woken.filter((line) => line.startsWith('claw_relay'))).toHaveLength(2);
    } else expect(ownerWakeups.along('claw_handoff', 'g')).toBeUndefined();
  });

  it('an owner learns that a worker started following its group without a read per run', async () => {
    const [followerStore, ownerStore, followerWakeups, ownerWakeups] = await twoWorkers();
    const common = { clock, leaseMs: 30_000, log: () => undefined };
    const follower = new Relay({ ...common, store: followerStore, wakeups: followerWakeups, workerId: 'w1', subscriptions: new Subscriptions(() => undefined), owns: () => false });
    const owner = new Relay({ ...common, store: ownerStore, wakeups: ownerWakeups, workerId: 'w2', subscriptions: new Subscriptions(() => undefined), owns: (group) => group === 'g' });
    await owner.interestForRun();
    expect(owner.followedElsewhere('g')).toBe(false);
    await follower.follow('g');
    // PostgreSQL: the follow's notice starts the owner's re-read; SQLite (one gateway, polling): the run re-reads.
    await until('the owner to know of the follower', async () => {
      await owner.interestForRun();
      return owner.followedElsewhere('g');
    });
  });

  it('a group moving between two followers: each gets the events of the other once and never its own back', async () => {
    const [storeA, storeB, wakeupsA, wakeupsB] = await twoWorkers();
    const common = { clock, leaseMs: 3000, log: () => undefined };
    let owner: 'a' | 'b' = 'b';
    const worker = (id: 'a' | 'b', store: SessionStore, wakeups: Wakeups) => {
      const subscriptions = new Subscriptions(() => undefined);
      const seen: unknown[] = [];
      subscriptions.add({ notify: (_method, params) => seen.push((params as { n: number }).n), onClose: () => () => undefined }, 'g');
      return { seen, relay: new Relay({ ...common, store, wakeups, workerId: id, subscriptions, owns: () => owner === id }) };
    };
    const a = worker('a', storeA, wakeupsA);
    const b = worker('b', storeB, wakeupsB);
    await a.relay.tick();
    await b.relay.tick();
    const publish = async (from: typeof a, n: number) => {
      await from.relay.refreshInterest();
      from.relay.publish('g', null, 'event', { n });
      await from.relay.close();
      await Promise.all([a.relay.read(), b.relay.read()]);
    };
    await publish(b, 1);
    owner = 'a';
    await publish(a, 2);
    owner = 'b';
    await publish(b, 3);
    expect(a.seen).toEqual([1, 3]);
    expect(b.seen).toEqual([2]);
  });
});
