/**
 * Goals in the store (`claw_goals`): a group has at most one open goal
 * (active or paused). Every change is one statement or one transaction
 * guarded by the goal's status, so two workers (or a client and the goal
 * service) never both move it: the loser's change matches no row.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCodes, LIMITS, XdogError, assertWithinLimit, utf8Bytes } from '../../core/index.js';
import type { SessionStore, Sql } from '../sessions/tokens.js';

export const GOAL_STATUSES = ['active', 'paused', 'done', 'abandoned', 'exceeded', 'expired'] as const;
export type GoalStatus = (typeof GOAL_STATUSES)[number];
/** The statuses of a group's open goal; the others are final. */
const OPEN: readonly GoalStatus[] = ['active', 'paused'];

export interface Goal {
  id: string;
  group: string;
  sessionId: string | null;
  text: string;
  status: GoalStatus;
  budgetTokens: number | null;
  /** US dollars. */
  budgetCost: number | null;
  /** Epoch ms. */
  deadlineAt: number | null;
  checkCommand: string | null;
  note: string | null;
  stopReason: string | null;
  /** Continuation inputs submitted so far. */
  nudges: number;
  createdAt: number;
  updatedAt: number;
}

export interface NewGoal {
  text: string;
  budgetTokens?: number;
  budgetCost?: number;
  deadlineAt?: number;
  checkCommand?: string;
}

interface GoalRow {
  id: string;
  group_name: string;
  session_id: string | null;
  text: string;
  status: string;
  budget_tokens: number | string | null;
  budget_cost: number | string | null;
  deadline_at: number | string | null;
  check_command: string | null;
  note: string | null;
  stop_reason: string | null;
  nudges: number | string;
  created_at: number | string;
  updated_at: number | string;
}

const num = (value: number | string | null): number | null => (value === null ? null : Number(value));

function toGoal(row: GoalRow): Goal {
  if (!(GOAL_STATUSES as readonly string[]).includes(row.status)) {
    throw new XdogError(ErrorCodes.STORE_CORRUPT, `goal ${row.id} has the unknown status "${row.status}"`, { hint: 'restore the claw store from a backup, or abandon the goal' });
  }
  return {
    id: row.id,
    group: row.group_name,
    sessionId: row.session_id,
    text: row.text,
    status: row.status as GoalStatus,
    budgetTokens: num(row.budget_tokens),
    budgetCost: num(row.budget_cost),
    deadlineAt: num(row.deadline_at),
    checkCommand: row.check_command,
    note: row.note,
    stopReason: row.stop_reason,
    nudges: Number(row.nudges),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

const COLUMNS = 'id, group_name, session_id, text, status, budget_tokens, budget_cost, deadline_at, check_command, note, stop_reason, nudges, created_at, updated_at';

async function openGoalIn(sql: Sql, group: string): Promise<Goal | null> {
  const rows = await sql.all<GoalRow>(`SELECT ${COLUMNS} FROM claw_goals WHERE group_name = :group AND status IN ('active', 'paused') ORDER BY created_at DESC`, { group });
  return rows[0] ? toGoal(rows[0]) : null;
}

/** Checks a new goal's text and bounds (over a limit is an error, never cut). */
export function checkNewGoal(goal: NewGoal): NewGoal {
  if (typeof goal.text !== 'string' || goal.text.trim() === '') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'a goal needs a text', { hint: 'xdog claw goal set "what should be true when it is done"' });
  assertWithinLimit('the goal text', utf8Bytes(goal.text), LIMITS.goalTextBytes);
  if (goal.checkCommand !== undefined) assertWithinLimit('the check command', utf8Bytes(goal.checkCommand), LIMITS.goalCheckBytes);
  return goal;
}

export class GoalStore {
  readonly #store: SessionStore;

  constructor(store: SessionStore) {
    this.#store = store;
  }

  /** The group's open goal (active or paused), or null. */
  open(group: string): Promise<Goal | null> {
    return this.#store.withRead((sql) => openGoalIn(sql, group));
  }

  /** The group's latest goal, open or not (what `goal show` shows), or null. */
  latest(group: string): Promise<Goal | null> {
    return this.#store.withRead(async (sql) => {
      const rows = await sql.all<GoalRow>(`SELECT ${COLUMNS} FROM claw_goals WHERE group_name = :group ORDER BY created_at DESC, id DESC`, { group });
      return rows[0] ? toGoal(rows[0]) : null;
    });
  }

  get(id: string): Promise<Goal | null> {
    return this.#store.withRead(async (sql) => {
      const rows = await sql.all<GoalRow>(`SELECT ${COLUMNS} FROM claw_goals WHERE id = :id`, { id });
      return rows[0] ? toGoal(rows[0]) : null;
    });
  }

  /** Sets the group's goal; CONFLICT while it has an open one. */
  create(group: string, sessionId: string | null, goal: NewGoal, now: number): Promise<Goal> {
    const checked = checkNewGoal(goal);
    return this.#store.withTransaction(async (sql) => {
      const current = await openGoalIn(sql, group);
      if (current) {
        throw new XdogError(ErrorCodes.CONFLICT, `group ${group} already has a goal (${current.status}): ${current.text}`, { hint: 'finish it first: xdog claw goal done, or xdog claw goal abandon' });
      }
      const id = randomUUID();
      await sql.run(
        `INSERT INTO claw_goals (${COLUMNS}, nudged_after) VALUES (:id, :group, :session, :text, 'active', :tokens, :cost, :deadline, :check, NULL, NULL, 0, :now, :now, NULL)`,
        { id, group, session: sessionId, text: checked.text, tokens: checked.budgetTokens ?? null, cost: checked.budgetCost ?? null, deadline: checked.deadlineAt ?? null, check: checked.checkCommand ?? null, now },
      );
      const rows = await sql.all<GoalRow>(`SELECT ${COLUMNS} FROM claw_goals WHERE id = :id`, { id });
      return toGoal(rows[0]!);
    });
  }

  /**
   * Moves goal `id` from one of `from` to `to` (with a reason, and new budgets
   * when given); null when it was not in one of `from` (someone moved it first).
   */
  async move(id: string, from: readonly GoalStatus[], to: GoalStatus, now: number, change: { stopReason?: string | null; budgetTokens?: number; budgetCost?: number; note?: string } = {}): Promise<Goal | null> {
    return this.#store.withTransaction(async (sql) => {
      const sets = ['status = :to', 'updated_at = :now'];
      if (change.stopReason !== undefined) sets.push('stop_reason = :reason');
      if (change.budgetTokens !== undefined) sets.push('budget_tokens = :tokens');
      if (change.budgetCost !== undefined) sets.push('budget_cost = :cost');
      if (change.note !== undefined) sets.push('note = :note');
      // A goal that becomes active again starts a fresh idle period.
      if (to === 'active') sets.push('nudged_after = NULL');
      const statuses = from.map((_, index) => `:from${index}`).join(', ');
      const params: Record<string, unknown> = { id, to, now, reason: change.stopReason ?? null, tokens: change.budgetTokens ?? null, cost: change.budgetCost ?? null, note: change.note ?? null };
      from.forEach((status, index) => (params[`from${index}`] = status));
      const changed = await sql.run(`UPDATE claw_goals SET ${sets.join(', ')} WHERE id = :id AND status IN (${statuses})`, params);
      if (changed !== 1) return null;
      const rows = await sql.all<GoalRow>(`SELECT ${COLUMNS} FROM claw_goals WHERE id = :id`, { id });
      return toGoal(rows[0]!);
    });
  }

  /** The model's progress note on an open goal; null when the goal is not open. */
  async setNote(id: string, note: string, now: number): Promise<Goal | null> {
    assertWithinLimit('the progress note', utf8Bytes(note), LIMITS.goalNoteBytes);
    return this.#store.withTransaction(async (sql) => {
      const changed = await sql.run(`UPDATE claw_goals SET note = :note, updated_at = :now WHERE id = :id AND status IN ('active', 'paused')`, { id, note, now });
      if (changed !== 1) return null;
      const rows = await sql.all<GoalRow>(`SELECT ${COLUMNS} FROM claw_goals WHERE id = :id`, { id });
      return toGoal(rows[0]!);
    });
  }

  /**
   * Claims the idle period `period` for one continuation of an active goal:
   * true for the one caller that got it (on any worker), false when the goal
   * is no longer active or this period already had its continuation.
   */
  async claimNudge(id: string, period: string, now: number): Promise<boolean> {
    const changed = await this.#store.withTransaction((sql) =>
      sql.run(`UPDATE claw_goals SET nudged_after = :period, nudges = nudges + 1, updated_at = :now WHERE id = :id AND status = 'active' AND (nudged_after IS NULL OR nudged_after <> :period)`, { id, period, now }),
    );
    return changed === 1;
  }
}

export { OPEN as OPEN_GOAL_STATUSES };
