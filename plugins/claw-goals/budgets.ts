/**
 * Budgets that stop spending (docs/goals.md): a group's `budget` (tokens
 * and/or cost, per day and per run) and a goal's own budget. The totals are
 * read from the usage ledger in the store before each model call and before
 * each system input is submitted, so every worker sharing the store counts
 * the same spending. A call already in flight is not counted until its row
 * lands: the overspend is at most that one call per running group.
 */
import type { ClawGroupConfig, SpendRefusal, SpendRequest } from '../../core/index.js';
import { spentSince, type SessionStore, type UsageOrigin } from '../sessions/tokens.js';
import type { Goal } from './goal-store.js';

interface Limit {
  tokens?: number;
  cost?: number;
}

interface Spent {
  tokens: number;
  cost: number;
}

/** Epoch ms of the last local midnight in `timeZone` at `now` (the start of a daily budget's day). */
export function startOfDay(now: number, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(new Date(now))
      .filter((part) => part.type !== 'literal')
      .map((part) => [part.type, Number(part.value)]),
  ) as { hour: number; minute: number; second: number };
  return now - ((parts.hour * 60 + parts.minute) * 60 + parts.second) * 1000 - (now % 1000);
}

const usd = (value: number): string => `$${value.toFixed(6).replace(/0+$/u, '').replace(/\.$/u, '')}`;

/** The first of `limit` that `spent` reached, as a refusal naming `key` and how to raise it. */
function over(limit: Limit | undefined, spent: Spent, key: string, what: string, raise: (field: 'tokens' | 'cost') => string): SpendRefusal | undefined {
  if (!limit) return undefined;
  if (limit.tokens !== undefined && spent.tokens >= limit.tokens) {
    return { budget: `${key}.tokens`, message: `${what} used ${spent.tokens} tokens, its budget of ${limit.tokens} (${key}.tokens)`, hint: raise('tokens') };
  }
  if (limit.cost !== undefined && spent.cost >= limit.cost) {
    return { budget: `${key}.cost`, message: `${what} spent ${usd(spent.cost)}, its budget of ${usd(limit.cost)} (${key}.cost)`, hint: raise('cost') };
  }
  return undefined;
}

/** The group's own budgets: today's spending (any origin), and this run's (model calls only). */
export async function groupBudgetRefusal(store: SessionStore, group: string, config: ClawGroupConfig | undefined, request: SpendRequest, now: number): Promise<SpendRefusal | undefined> {
  const budget = config?.budget;
  if (!budget) return undefined;
  const key = `claw.groups.${group}.budget`;
  const restart = 'and restart the gateway';
  if (budget.per_day) {
    const zone = config.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    const spent = await store.withRead((sql) => spentSince(sql, group, startOfDay(now, zone)));
    const refusal = over(budget.per_day, spent, `${key}.per_day`, `group ${group} today`, (field) => `raise ${key}.per_day.${field} in the config ${restart}, or wait for the next day (local midnight, ${zone})`);
    if (refusal) return refusal;
  }
  if (budget.per_run && request.phase === 'call' && request.runStartedAt !== undefined && request.sessionId !== undefined) {
    const spent = await store.withRead((sql) => spentSince(sql, group, request.runStartedAt!, undefined, request.sessionId));
    return over(budget.per_run, spent, `${key}.per_run`, `this run of group ${group}`, (field) => `raise ${key}.per_run.${field} in the config ${restart}; the next run starts from zero`);
  }
  return undefined;
}

/** What a goal's own inputs spent so far (the ledger rows of origin goal/id). */
export function goalSpent(store: SessionStore, goal: Goal): Promise<{ tokens: number; cost: number; calls: number }> {
  const origin: UsageOrigin = { kind: 'goal', id: goal.id };
  return store.withRead((sql) => spentSince(sql, goal.group, 0, origin));
}

/** A goal's budget, checked against what its inputs spent. */
export async function goalBudgetRefusal(store: SessionStore, goal: Goal): Promise<SpendRefusal | undefined> {
  if (goal.budgetTokens === null && goal.budgetCost === null) return undefined;
  const spent = await goalSpent(store, goal);
  const limit: Limit = { ...(goal.budgetTokens === null ? {} : { tokens: goal.budgetTokens }), ...(goal.budgetCost === null ? {} : { cost: goal.budgetCost }) };
  return over(limit, spent, `goal ${goal.id} budget`, `the goal of group ${goal.group}`, (field) =>
    `raise it with xdog claw goal resume --group ${goal.group} --budget-${field} ${field === 'tokens' ? 'N' : 'USD'} (a total for the goal), or abandon it`,
  );
}
