/**
 * Lease fencing of a worker (worker-pool.ts) with a fake clock and a store
 * standing in for the database: an owner whose renewals fail stops its group
 * before the lease expires, and no run may start on a lease about to run out.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { ErrorCodes, XdogError } from '../../../core/index.js';
import { WorkerPool, type PoolGroups } from '../../../plugins/claw-gateway/worker-pool.js';
import type { LeaseOwner, LeaseRecord, SessionStore } from '../../../plugins/sessions/index.js';

const LEASE_MS = 3_000;
const owner: LeaseOwner = { ownerId: 'w1', pid: 1, host: 'h', info: '' };
const clock = { now: () => Date.now() };

/** The store calls a pool makes; `down` makes every one fail like a lost database connection. */
function fakeStore() {
  const state = { down: false, transactionsDown: false, renewed: 0, heartbeats: [] as number[], lost: new Set<string>(), releaseFailures: 0, released: [] as string[], held: new Set<string>(['g']) };
  const check = () => {
    if (state.down) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the claw store is unreachable');
  };
  const store = {
    withTransaction: async (work: (sql: unknown) => Promise<unknown>) => {
      check();
      if (state.transactionsDown) throw new XdogError(ErrorCodes.BUSY, 'the claw store is busy');
      // The statements a round writes: a heartbeat is the upsert of claw_workers.
      await work({ run: async (text: string) => void (/INSERT INTO claw_workers/.test(text) && state.heartbeats.push(clock.now())) });
    },
    withStatement: async (work: (sql: unknown) => Promise<unknown>) => {
      check();
      if (state.transactionsDown) throw new XdogError(ErrorCodes.BUSY, 'the claw store is busy');
      await work({ run: async (text: string) => void (/INSERT INTO claw_workers/.test(text) && state.heartbeats.push(clock.now())) });
    },
    withRead: async () => (check(), []),
    listLeases: async (): Promise<LeaseRecord[]> => (check(), []),
    acquireLease: async (group: string, who: LeaseOwner, now: number, leaseMs: number): Promise<LeaseRecord> => (check(), state.held.add(group), state.lost.delete(group), { group, ...who, expiresAt: now + leaseMs }),
    renewLeases: async (_owner: string, _now: number, _leaseMs: number): Promise<string[]> => {
      check();
      state.renewed++;
      return [...state.held].filter((group) => !state.lost.has(group));
    },
    releaseLease: async (group: string) => {
      check();
      if (state.releaseFailures > 0 && state.releaseFailures--) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the claw store is unreachable');
      state.released.push(group);
      // Given back: later renewals no longer find it.
      state.lost.add(group);
      return true;
    },
  };
  return { store: store as unknown as SessionStore, state };
}

function fakeGroups(openMs = 0, failOpen?: string) {
  const owned = new Set<string>();
  const closed: Array<{ group: string; at: number }> = [];
  const groups: PoolGroups = {
    owned: () => [...owned],
    idle: () => false,
    open: async (group) => {
      if (openMs) await new Promise((resolve) => setTimeout(resolve, openMs));
      if (group === failOpen) throw new Error('the group did not load');
      owned.add(group);
    },
    close: async (group) => {
      owned.delete(group);
      closed.push({ group, at: clock.now() });
    },
  };
  return { groups, closed };
}

let pool: WorkerPool | undefined;
beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'clearInterval', 'Date'] }));
afterEach(async () => {
  await pool?.stop();
  vi.useRealTimers();
});

/** A pool serving group g; loading a group takes `openMs`. */
async function startPool(openMs = 0, options: { configured?: string[]; failOpen?: string; releaseFailures?: number } = {}) {
  const { store, state } = fakeStore();
  state.releaseFailures = options.releaseFailures ?? 0;
  const { groups, closed } = fakeGroups(openMs, options.failOpen);
  const worker = { id: 'w1', name: 'w1', pid: 1, host: 'h', socket: '/s', startedAt: 0, heartbeatAt: 0 };
  pool = new WorkerPool({ store, clock, worker, owner, leaseMs: LEASE_MS, configured: options.configured ?? ['g'], groups, log: () => undefined });
  const started = clock.now();
  await pool.start();
  return { pool, state, closed, expiry: started + LEASE_MS };
}

it('an owner cut off from the database stops its group before the lease expires, and starts no run on it', async () => {
  const { pool, state, closed, expiry } = await startPool();
  expect(pool.expiryOf('g')).toBe(expiry);
  await pool.untilLeaseFresh('g');
  state.down = true;
  await vi.advanceTimersByTimeAsync(LEASE_MS);
  expect(closed.map((entry) => entry.group)).toEqual(['g']);
  expect(closed[0]!.at).toBeLessThan(expiry);
  expect(closed[0]!.at).toBeGreaterThanOrEqual(expiry - pool.margin - LEASE_MS / 12);
  await expect(pool.untilLeaseFresh('g')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
});

it('renewals that succeed keep the group; a lease missing from a renewal is lost and its group closed', async () => {
  const { state, closed } = await startPool();
  await vi.advanceTimersByTimeAsync(3 * LEASE_MS);
  expect(closed).toEqual([]);
  expect(state.renewed).toBeGreaterThanOrEqual(8);
  state.lost.add('g');
  await vi.advanceTimersByTimeAsync(LEASE_MS / 3);
  // Closed at once; the same round's fair share may then take it anew (a fresh lease).
  expect(closed.map((entry) => entry.group)).toEqual(['g']);
});

it('a failing heartbeat does not skip the renewals of the round', async () => {
  const { state, closed } = await startPool();
  state.transactionsDown = true;
  const before = state.renewed;
  await vi.advanceTimersByTimeAsync(3 * LEASE_MS);
  expect(closed).toEqual([]);
  expect(state.renewed).toBeGreaterThanOrEqual(before + 8);
});

it('heartbeats and renews every quarter of the lease while a fair-share round is busy loading a group, also the first', async () => {
  // Loading takes two leases: a heartbeat or renewal that waited for the round would let the lease run out meanwhile.
  const started = clock.now();
  const starting = startPool(2 * LEASE_MS);
  await vi.advanceTimersByTimeAsync(3 * LEASE_MS);
  const { state, closed } = await starting;
  const gaps = state.heartbeats.map((at, index) => at - (state.heartbeats[index - 1] ?? started));
  expect(state.heartbeats.length).toBeGreaterThanOrEqual(11);
  expect(Math.max(...gaps)).toBeLessThanOrEqual(LEASE_MS / 4);
  expect(state.renewed).toBeGreaterThanOrEqual(10);
  expect(closed).toEqual([]);
});

it('gives back, at the next renewal, a lease still its own for a group it does not serve (its release after a failed load failed)', async () => {
  // It serves h; g's load fails and so does giving g's lease back.
  const { pool, state } = await startPool(0, { configured: ['g', 'h'], failOpen: 'g', releaseFailures: 1 });
  expect(pool.expiryOf('g')).toBeUndefined();
  expect(pool.expiryOf('h')).toBeDefined();
  expect(state.released).toEqual([]);
  // The renewal renews every lease of the owner, g's too, and gives back what is not served.
  await vi.advanceTimersByTimeAsync(LEASE_MS / 4);
  expect(state.released).toEqual(['g']);
  expect(pool.expiryOf('h')).toBeDefined();
});
