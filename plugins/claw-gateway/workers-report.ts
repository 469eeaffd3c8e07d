/**
 * What `workers.list` and `xdog claw workers` show: the registered workers
 * with the groups their leases hold, plus lease holders that are gateways run
 * without --worker (they hold leases but keep no heartbeat row).
 */
import type { SessionStore } from '../sessions/tokens.js';
import type { WorkerInfo, WorkersReport } from './protocol.js';
import { listWorkers } from './worker-store.js';

export async function workersReport(store: SessionStore, options: { now: number; leaseMs: number; configured: readonly string[]; self: string | null }): Promise<WorkersReport> {
  const { now, leaseMs } = options;
  const [workers, leases] = await Promise.all([store.withRead(listWorkers), store.listLeases()]);
  const byId = new Map<string, WorkerInfo>();
  for (const worker of workers) {
    byId.set(worker.id, { ...worker, alive: worker.heartbeatAt > now - leaseMs, groups: [] });
  }
  for (const lease of leases) {
    let holder = byId.get(lease.ownerId);
    if (!holder) {
      holder = { id: lease.ownerId, name: 'gateway', pid: lease.pid, host: lease.host, socket: lease.info, startedAt: null, heartbeatAt: null, alive: false, groups: [] };
      byId.set(lease.ownerId, holder);
    }
    holder.groups.push({ group: lease.group, expiresAt: lease.expiresAt });
    if (holder.heartbeatAt === null && lease.expiresAt > now) holder.alive = true;
  }
  const held = new Set(leases.filter((lease) => lease.expiresAt > now).map((lease) => lease.group));
  return {
    self: options.self,
    leaseSeconds: leaseMs / 1000,
    workers: [...byId.values()],
    unowned: options.configured.filter((group) => !held.has(group)),
  };
}
