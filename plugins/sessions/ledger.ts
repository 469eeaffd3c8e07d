/** The usage ledger (one row per model call) and recorded idempotency keys. */
import { z } from 'zod';
import { ErrorCodes, LIMITS, UsageSchema, XdogError, assertWithinLimit, utf8Bytes } from '../../core/index.js';
import type { Sql } from './sql.js';
import type { UsageDimension, UsageFilter, UsageInput, UsageOrigin, UsageTotals } from './types.js';

const UsageInputSchema = z
  .object({
    group: z.string().min(1),
    sessionId: z.string().min(1).nullable(),
    model: z.string().min(1),
    usage: UsageSchema,
    cost: z.number().finite().nonnegative().nullable(),
    durationMs: z.number().finite().nonnegative(),
    at: z.number().int().nonnegative(),
    origin: z.object({ kind: z.string().min(1).max(16), id: z.string().min(1).max(128).nullable() }).strict().optional(),
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
    `INSERT INTO claw_usage (group_name, session_id, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost, duration_ms, created_at, origin, origin_id)
     VALUES (:group, :session, :model, :input, :output, :cacheRead, :cacheWrite, :cost, :duration, :at, :origin, :originId) RETURNING id`,
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
      origin: row.origin?.kind ?? null,
      originId: row.origin?.id ?? null,
    },
  );
  return Number(inserted!.id);
}

interface TotalsRow {
  key: string | null;
  calls: number | string;
  unpriced: number | string | null;
  input: number | string | null;
  output: number | string | null;
  cache_read: number | string | null;
  cache_write: number | string | null;
  cost: number | string | null;
  duration_ms: number | string | null;
}

/** The column each dimension groups by, and the origin its rows must have. */
const DIMENSIONS: Record<UsageDimension, { column: string; origin?: string }> = {
  model: { column: 'model' },
  group: { column: 'group_name' },
  session: { column: 'session_id' },
  goal: { column: 'origin_id', origin: 'goal' },
  child: { column: 'origin_id', origin: 'child' },
  schedule: { column: 'origin_id', origin: 'schedule' },
  mcp: { column: 'origin_id', origin: 'mcp' },
  origin: { column: 'origin' },
};

/** Totals by a dimension (default: model), by its value; cost is null when no call of a row had a known cost. */
export async function usageTotals(sql: Sql, filter: UsageFilter = {}): Promise<UsageTotals[]> {
  const by = filter.by ?? 'model';
  const dimension = DIMENSIONS[by];
  const where: string[] = [];
  if (filter.group !== undefined) where.push('group_name = :group');
  if (filter.sessionId !== undefined) where.push('session_id = :session');
  if (filter.since !== undefined) where.push('created_at >= :since');
  if (dimension.origin !== undefined) where.push('origin = :origin');
  const rows = await sql.all<TotalsRow>(
    `SELECT ${dimension.column} AS key, COUNT(*) AS calls, SUM(CASE WHEN cost IS NULL THEN 1 ELSE 0 END) AS unpriced, SUM(input_tokens) AS input, SUM(output_tokens) AS output,
            SUM(cache_read_tokens) AS cache_read, SUM(cache_write_tokens) AS cache_write, SUM(cost) AS cost, SUM(duration_ms) AS duration_ms
     FROM claw_usage ${where.length ? `WHERE ${where.join(' AND ')}` : ''} GROUP BY ${dimension.column} ORDER BY ${dimension.column}`,
    { group: filter.group, session: filter.sessionId, since: filter.since, origin: dimension.origin },
  );
  return rows.map((row) => ({
    by,
    key: row.key,
    ...(by === 'model' ? { model: row.key ?? '' } : {}),
    calls: Number(row.calls),
    unpricedCalls: Number(row.unpriced ?? 0),
    input: Number(row.input ?? 0),
    output: Number(row.output ?? 0),
    cacheRead: Number(row.cache_read ?? 0),
    cacheWrite: Number(row.cache_write ?? 0),
    cost: row.cost === null ? null : Number(row.cost),
    durationMs: Number(row.duration_ms ?? 0),
  }));
}

/** What a group (or one origin of it) spent since `since`: tokens of every kind summed, and the known cost. */
export async function spentSince(sql: Sql, group: string, since: number, origin?: UsageOrigin, sessionId?: string): Promise<{ tokens: number; cost: number; calls: number }> {
  const where = ['group_name = :group', 'created_at >= :since'];
  if (origin) where.push('origin = :origin', 'origin_id = :originId');
  if (sessionId) where.push('session_id = :session');
  const [row] = await sql.all<{ tokens: number | string | null; cost: number | string | null; calls: number | string }>(
    `SELECT SUM(input_tokens + output_tokens + cache_read_tokens + cache_write_tokens) AS tokens, SUM(cost) AS cost, COUNT(*) AS calls FROM claw_usage WHERE ${where.join(' AND ')}`,
    { group, since, origin: origin?.kind, originId: origin?.id, session: sessionId },
  );
  return { tokens: Number(row?.tokens ?? 0), cost: Number(row?.cost ?? 0), calls: Number(row?.calls ?? 0) };
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
