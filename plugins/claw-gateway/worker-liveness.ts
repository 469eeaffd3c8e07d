/**
 * Whether a worker of the pool is certainly gone, so its groups need not wait
 * for its leases to run out: it ran on this host, its pid names no process
 * here, and its socket file refuses connections. Both checks, because either
 * alone can mislead: a worker in another pid namespace (a container with the
 * same host name) is invisible to a pid check, and a reused pid looks alive
 * (then nothing is freed early: the lease runs out, as for a worker on
 * another host). Never true for a worker that still listens.
 */
import net from 'node:net';
import os from 'node:os';
import { processAlive } from '../sessions/tokens.js';
import type { WorkerRecord } from './worker-store.js';

/** How long a connection attempt to a dead worker's socket may take (a refusal is immediate). */
const PROBE_MS = 1000;

/** The cheap half of workerGone, no I/O: the worker ran on this host and its pid names no process here. */
export function pidGone(worker: Pick<WorkerRecord, 'host' | 'pid'>, host = os.hostname()): boolean {
  return worker.host === host && !processAlive(worker.pid);
}

export async function workerGone(worker: Pick<WorkerRecord, 'host' | 'pid' | 'socket'>, host = os.hostname()): Promise<boolean> {
  return pidGone(worker, host) && socketRefuses(worker.socket);
}

/** True only when the socket file is there and nobody listens on it (ECONNREFUSED). */
function socketRefuses(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.createConnection(socketPath);
    const done = (refused: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(refused);
    };
    const timer = setTimeout(() => done(false), PROBE_MS);
    socket.once('connect', () => done(false));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED'));
  });
}
