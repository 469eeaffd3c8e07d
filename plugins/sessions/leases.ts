/**
 * Group leases: one owner (a gateway process) per group. A lease is taken
 * when free, renewed by its owner, and taken over only when it expired or its
 * holder is a dead process on this host; otherwise the holder is named.
 * Take-overs are compare-and-swap updates, so two contenders never both win.
 */
import os from 'node:os';
import { ErrorCodes, LIMITS, XdogError } from '../../core/index.js';
import type { Sql } from './sql.js';
import type { LeaseOwner, LeaseRecord } from './types.js';

interface LeaseRow {
  group_name: string;
  owner_id: string;
  pid: number | string;
  host: string;
  info: string;
  expires_at: number | string;
}

const LEASE_COLUMNS = 'group_name, owner_id, pid, host, info, expires_at';

function toLease(row: LeaseRow): LeaseRecord {
  return { group: row.group_name, ownerId: row.owner_id, pid: Number(row.pid), host: row.host, info: row.info, expiresAt: Number(row.expires_at) };
}

/** False only when the process certainly does not exist (EPERM means it exists under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

export function checkLeaseOwner(owner: LeaseOwner): LeaseOwner {
  if (typeof owner?.ownerId !== 'string' || !owner.ownerId || owner.ownerId.length > 128) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'a lease owner id must be 1 to 128 characters');
  }
  if (!Number.isInteger(owner.pid) || owner.pid < 1) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `a lease owner pid must be a positive integer, not ${owner.pid}`);
  if (typeof owner.host !== 'string' || !owner.host) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'a lease owner needs a host name');
  return { ownerId: owner.ownerId, pid: owner.pid, host: owner.host, info: String(owner.info ?? '') };
}

export async function findLease(sql: Sql, group: string): Promise<LeaseRecord | undefined> {
  const [row] = await sql.all<LeaseRow>(`SELECT ${LEASE_COLUMNS} FROM claw_group_leases WHERE group_name = :group`, { group });
  return row && toLease(row);
}

function held(lease: LeaseRecord): XdogError {
  const info = lease.info ? ` (${lease.info})` : '';
  return new XdogError(
    ErrorCodes.CONFLICT,
    `group "${lease.group}" is held by pid ${lease.pid} on ${lease.host}${info} until ${new Date(lease.expiresAt).toISOString()}`,
    { hint: 'stop that gateway first, or wait until its lease expires', details: { holder: lease } },
  );
}

function takeable(lease: LeaseRecord, now: number): boolean {
  return lease.expiresAt <= now || (lease.host === os.hostname() && !processAlive(lease.pid));
}

/** Takes or renews `group` for `leaseMs` (default LIMITS.clawLeaseSeconds). */
export async function acquire(sql: Sql, group: string, owner: LeaseOwner, now: number, leaseMs = LIMITS.clawLeaseSeconds * 1000): Promise<LeaseRecord> {
  const lease: LeaseRecord = { group, ...owner, expiresAt: now + leaseMs };
  const values = { group, owner: owner.ownerId, pid: owner.pid, host: owner.host, info: owner.info, expires: lease.expiresAt };
  const current = await findLease(sql, group);
  if (!current) {
    const inserted = await sql.run(
      `INSERT INTO claw_group_leases (${LEASE_COLUMNS}) VALUES (:group, :owner, :pid, :host, :info, :expires) ON CONFLICT (group_name) DO NOTHING`,
      values,
    );
    if (inserted === 1) return lease;
    const winner = await findLease(sql, group);
    throw held(winner ?? lease);
  }
  if (current.ownerId !== owner.ownerId && !takeable(current, now)) throw held(current);
  const updated = await sql.run(
    `UPDATE claw_group_leases SET owner_id = :owner, pid = :pid, host = :host, info = :info, expires_at = :expires
     WHERE group_name = :group AND owner_id = :previous AND expires_at = :previousExpires`,
    { ...values, previous: current.ownerId, previousExpires: current.expiresAt },
  );
  if (updated !== 1) throw held((await findLease(sql, group)) ?? current);
  return lease;
}

/**
 * Renews, in one statement, every lease `ownerId` holds that has not expired
 * by `now`, to `now + leaseMs`; returns the groups renewed. A lease that ran
 * out is not renewed even if nobody took it yet: another worker may be taking
 * it right now, so its former owner must treat it as lost.
 */
export async function renewAll(sql: Sql, ownerId: string, now: number, leaseMs: number): Promise<string[]> {
  const rows = await sql.all<{ group_name: string }>('UPDATE claw_group_leases SET expires_at = :expires WHERE owner_id = :owner AND expires_at > :now RETURNING group_name', {
    owner: ownerId,
    now,
    expires: now + leaseMs,
  });
  return rows.map((row) => row.group_name);
}

export async function release(sql: Sql, ownerId: string): Promise<void> {
  await sql.run('DELETE FROM claw_group_leases WHERE owner_id = :owner', { owner: ownerId });
}

/** Gives one group up; only its holder can (a lease taken over since is left alone). */
export async function releaseOne(sql: Sql, group: string, ownerId: string): Promise<boolean> {
  return (await sql.run('DELETE FROM claw_group_leases WHERE group_name = :group AND owner_id = :owner', { group, owner: ownerId })) === 1;
}

/** Every lease, expired or not, by group name. */
export async function listAll(sql: Sql): Promise<LeaseRecord[]> {
  return (await sql.all<LeaseRow>(`SELECT ${LEASE_COLUMNS} FROM claw_group_leases ORDER BY group_name`)).map(toLease);
}
