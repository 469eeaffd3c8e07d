/** The usage ledger (one row per model call) and recorded idempotency keys. */
import { z } from 'zod';
import { ErrorCodes, LIMITS, UsageSchema, XdogError, assertWithinLimit, utf8Bytes } from '../../core/index.js';
import type { Sql } from './sql.js';
import type { UsageFilter, UsageInput, UsageTotals } from './types.js';

const UsageInputSchema = z
  .object({
    group: z.string().min(1),
    sessionId: z.string().min(1).nullable(),
    model: z.string().min(1),
    usage: UsageSchema,
    cost: z.number().finite().nonnegative().nullable(),
    durationMs: z.number().finite().nonnegative(),
    at: z.number().int().nonnegative(),
  })
  .strict();

export function checkUsage(row: UsageInput): UsageInput {
  const parsed = UsageInputSchema.safeParse(row);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `usage row ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

/** Writes one ledger row; answers its id (children link their rows to it). */
export async function insertUsage(sql: Sql, row: UsageInput): Promise<number> {
  const [inserted] = await sql.all<{ id: number | string }>(
    `INSERT INTO claw_usage (group_name, session_id, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost, duration_ms, created_at)
     VALUES (:group, :session, :model, :input, :output, :cacheRead, :cacheWrite, :cost, :duration, :at) RETURNING id`,
    {
      group: row.group,
      session: row.sessionId,
      model: row.model,
      input: row.usage.input,
      output: row.usage.output,
      cacheRead: row.usage.cacheRead,
      cacheWrite: row.usage.cacheWrite,
      cost: row.cost,
      duration: Math.round(row.durationMs),
      at: row.at,
    },
  );
  return Number(inserted!.id);
}

interface TotalsRow {
  model: string;
  calls: number | string;
  input: number | string | null;
  output: number | string | null;
  cache_read: number | string | null;
  cache_write: number | string | null;
  cost: number | string | null;
  duration_ms: number | string | null;
}

/** Totals per model, by model name; cost is null when no call of that model had a known cost. */
export async function usageTotals(sql: Sql, filter: UsageFilter = {}): Promise<UsageTotals[]> {
  const where: string[] = [];
  if (filter.group !== undefined) where.push('group_name = :group');
  if (filter.sessionId !== undefined) where.push('session_id = :session');
  if (filter.since !== undefined) where.push('created_at >= :since');
  const rows = await sql.all<TotalsRow>(
    `SELECT model, COUNT(*) AS calls, SUM(input_tokens) AS input, SUM(output_tokens) AS output, SUM(cache_read_tokens) AS cache_read,
            SUM(cache_write_tokens) AS cache_write, SUM(cost) AS cost, SUM(duration_ms) AS duration_ms
     FROM claw_usage ${where.length ? `WHERE ${where.join(' AND ')}` : ''} GROUP BY model ORDER BY model`,
    { group: filter.group, session: filter.sessionId, since: filter.since },
  );
  return rows.map((row) => ({
    model: row.model,
    calls: Number(row.calls),
    input: Number(row.input ?? 0),
    output: Number(row.output ?? 0),
    cacheRead: Number(row.cache_read ?? 0),
    cacheWrite: Number(row.cache_write ?? 0),
    cost: row.cost === null ? null : Number(row.cost),
    durationMs: Number(row.duration_ms ?? 0),
  }));
}

export function checkInputKey(key: string): string {
  if (typeof key !== 'string' || !key) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'an idempotency key must be a non-empty string');
  assertWithinLimit('the idempotency key', utf8Bytes(key), LIMITS.clawIdempotencyKeyBytes);
  return key;
}

/** True when the group has recorded the key (its input was admitted once). */
export async function inputKeyExists(sql: Sql, group: string, key: string): Promise<boolean> {
  const rows = await sql.all<{ found: number }>('SELECT 1 AS found FROM claw_input_keys WHERE group_name = :group AND input_key = :key', { group, key });
  return rows.length > 0;
}

/** True when the key was new for the group (and is now recorded). */
export async function insertInputKey(sql: Sql, group: string, key: string, sessionId: string, now: number): Promise<boolean> {
  const changed = await sql.run(
    'INSERT INTO claw_input_keys (group_name, input_key, session_id, created_at) VALUES (:group, :key, :session, :now) ON CONFLICT (group_name, input_key) DO NOTHING',
    { group, key, session: sessionId, now },
  );
  return changed === 1;
}
