/**
 * A group's access scope, stored beside its sessions. Reading it never
 * guesses: a row whose mode or revision is not one the store writes is
 * STORE_CORRUPT, and callers treat that as "deny" (fail closed).
 */
import { ErrorCodes, XdogError } from '../../core/index.js';
import type { Sql } from './sql.js';
import type { AccessMode, AccessScopeRecord } from './types.js';

const MODES: readonly AccessMode[] = ['full', 'read-only'];

interface AccessRow {
  mode: string;
  revision: number | string;
  changed_at: number | string;
}

function decode(group: string, row: AccessRow): AccessScopeRecord {
  const revision = Number(row.revision);
  const mode = row.mode as AccessMode;
  if (!MODES.includes(mode) || !Number.isSafeInteger(revision) || revision < 1) {
    throw new XdogError(ErrorCodes.STORE_CORRUPT, `the access scope of group ${group} is corrupt (mode ${JSON.stringify(row.mode)}, revision ${JSON.stringify(row.revision)})`, {
      hint: 'every tool call of the group is denied until it is set again: `xdog claw readonly on` (then `off` if you mean it)',
    });
  }
  return { group, mode, revision, changedAt: Number(row.changed_at) };
}

/** The group's scope; a group that never changed it has full access at revision 0. */
export async function readAccessScope(sql: Sql, group: string): Promise<AccessScopeRecord> {
  const [row] = await sql.all<AccessRow>('SELECT mode, revision, changed_at FROM claw_access_scopes WHERE group_name = :group', { group });
  return row ? decode(group, row) : { group, mode: 'full', revision: 0, changedAt: null };
}

/**
 * Sets the mode. `expectedRevision` fences the change (STALE when another
 * client changed it since). A corrupt row may only be replaced by the
 * stricter mode, so nothing can widen access it cannot read.
 */
export async function writeAccessScope(sql: Sql, group: string, mode: AccessMode, expectedRevision: number | undefined, now: number): Promise<AccessScopeRecord> {
  if (!MODES.includes(mode)) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `access mode must be one of ${MODES.join(', ')}, not ${JSON.stringify(mode)}`);
  let current: AccessScopeRecord | undefined;
  try {
    current = await readAccessScope(sql, group);
  } catch (error) {
    if (!XdogError.is(error, ErrorCodes.STORE_CORRUPT) || mode !== 'read-only') throw error;
  }
  if (current && expectedRevision !== undefined && expectedRevision !== current.revision) {
    throw new XdogError(ErrorCodes.STALE, `the access scope of group ${group} is at revision ${current.revision}, not ${expectedRevision}`, {
      hint: 'it changed since you looked; check `xdog claw readonly status` and decide anew',
    });
  }
  if (current && current.mode === mode) return current;
  const [previous] = await sql.all<{ revision: number | string }>('SELECT revision FROM claw_access_scopes WHERE group_name = :group', { group });
  const revision = (current?.revision ?? (Number.isSafeInteger(Number(previous?.revision)) ? Number(previous?.revision) : 0)) + 1;
  const params = { group, mode, revision, now };
  if (previous) await sql.run('UPDATE claw_access_scopes SET mode = :mode, revision = :revision, changed_at = :now WHERE group_name = :group', params);
  else await sql.run('INSERT INTO claw_access_scopes (group_name, mode, revision, changed_at) VALUES (:group, :mode, :revision, :now)', params);
  return { group, mode, revision, changedAt: now };
}
