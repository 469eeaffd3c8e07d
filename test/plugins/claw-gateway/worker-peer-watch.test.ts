/**
 * A worker of this host that dies frees its groups at once (worker-pool.ts),
 * not at the next fair-share round: the peer is a real process listening on a
 * real Unix socket, killed with SIGKILL (its pid is gone, its socket file stays
 * and refuses); the pool's store is a stand-in and its lease is 300 s, so the
 * next round would come 100 s later.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import type { LeaseOwner, LeaseRecord, SessionStore } from '../../../plugins/sessions/index.js';
import { WorkerPool, type PoolGroups } from '../../../plugins/claw-gateway/worker-pool.js';
import type { WorkerRecord } from '../../../plugins/claw-gateway/worker-store.js';
import { tempDir } from '../../support/temp.js';
import { until } from '../../support/claw.js';

const LEASE_MS = 300_000;
const host = os.hostname();
const clock = { now: () => Date.now() };

let pool: WorkerPool | undefined;
let peer: ChildProcess | undefined;
afterEach(async () => {
  await pool?.stop();
  vi.useRealTimers();
  if (peer && peer.exitCode === null && peer.signalCode === null) peer.kill('SIGKILL');
});

/** A process listening on `socket`, as a worker does; resolves once it listens. */
async function listeningPeer(socket: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(socket)}, () => console.log('listening'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
  await once(child.stdout!, 'data');
  return child;
}

it('takes the groups of a worker of this host as soon as its pid is gone, long before its lease or the next round', async () => {
  const socket = path.join(tempDir('xdog-peer-'), 'peer.sock');
  peer = await listeningPeer(socket);
  const now = Date.now();
  const other: WorkerRecord = { id: 'w2', name: 'w2', pid: peer.pid!, host, socket, startedAt: now, heartbeatAt: now };
  const self: WorkerRecord = { id: 'w1', name: 'w1', pid: process.pid, host, socket: '/nowhere', startedAt: now, heartbeatAt: now };
  const leases: LeaseRecord[] = [{ group: 'p', ownerId: 'w2', pid: other.pid, host, info: '', expiresAt: now + LEASE_MS }];
  const acquired: string[] = [];
  const store = {
    withStatement: async (work: (sql: unknown) => Promise<unknown>) => work({ run: async () => 1 }),
    withTransaction: async (work: (sql: unknown) => Promise<unknown>) => work({ run: async () => 1 }),
    withRead: async () => [self, other],
    listLeases: async () => leases,
    renewLeases: async () => acquired,
    releaseLease: async () => true,
    acquireLease: async (group: string, who: LeaseOwner, at: number, leaseMs: number): Promise<LeaseRecord> => {
      acquired.push(group);
      return { group, ...who, expiresAt: at + leaseMs };
    },
  } as unknown as SessionStore;
  const owned = new Set<string>();
  const groups: PoolGroups = { owned: () => [...owned], idle: () => false, open: async (group) => void owned.add(group), close: async (group) => void owned.delete(group) };
  const lines: string[] = [];
  // Only the pool's timers are fake: the socket probe's I/O is real.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  pool = new WorkerPool({ store, clock, worker: self, owner: { ownerId: 'w1', pid: process.pid, host, info: '' }, leaseMs: LEASE_MS, configured: ['g', 'p'], groups, log: (line) => lines.push(line) });
  await pool.start();
  // Its fair share while w2 lives: one group, the free one.
  expect(acquired).toEqual(['g']);

  peer.kill('SIGKILL');
  await once(peer, 'exit');
  // One watch period, far from the 100 s to the next round; the round it starts probes the socket for real.
  await vi.advanceTimersByTimeAsync(1_000);
  await until(() => owned.has('p'), 'the dead worker\'s group to be taken', 20_000);
  expect([...owned].sort()).toEqual(['g', 'p']);
  expect(lines).toContain('worker w2 on this host is gone (no process, its socket refuses); its groups are free');
  expect(fs.existsSync(socket)).toBe(true);
});
