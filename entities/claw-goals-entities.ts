/**
 * The goals of claw groups (plugins/claw-goals): one row per goal, the
 * group's open one (active or paused) at most. Portable column types
 * (SQLite and PostgreSQL).
 */
import { EntitySchema } from 'typeorm';
import { bigintNumber } from './columns.js';

export interface ClawGoalRow {
  id: string;
  groupName: string;
  /** The group's active session when the goal was set. */
  sessionId: string | null;
  text: string;
  /** active, paused, done, abandoned, exceeded (a budget), expired (the deadline). */
  status: string;
  budgetTokens: number | null;
  /** US dollars. */
  budgetCost: number | null;
  /** Epoch ms. */
  deadlineAt: number | null;
  /** Run in the workspace when the model says the goal is met; exit 0 confirms it. */
  checkCommand: string | null;
  /** The model's latest progress note (goal_update). */
  note: string | null;
  /** Why the goal stopped (a budget, the deadline, a failed check), for people. */
  stopReason: string | null;
  /** The idle period the last continuation was submitted in (at most one per period). */
  nudgedAfter: string | null;
  /** Continuation inputs submitted so far. */
  nudges: number;
  createdAt: number;
  updatedAt: number;
}

export const ClawGoalEntity = new EntitySchema<ClawGoalRow>({
  name: 'ClawGoal',
  tableName: 'claw_goals',
  columns: {
    id: { type: 'varchar', length: 36, primary: true },
    groupName: { name: 'group_name', type: 'varchar', length: 64 },
    sessionId: { name: 'session_id', type: 'varchar', length: 36, nullable: true },
    text: { type: 'text' },
    status: { type: 'varchar', length: 16 },
    budgetTokens: { name: 'budget_tokens', type: 'bigint', nullable: true, transformer: bigintNumber },
    budgetCost: { name: 'budget_cost', type: 'double precision', nullable: true },
    deadlineAt: { name: 'deadline_at', type: 'bigint', nullable: true, transformer: bigintNumber },
    checkCommand: { name: 'check_command', type: 'text', nullable: true },
    note: { type: 'text', nullable: true },
    stopReason: { name: 'stop_reason', type: 'text', nullable: true },
    nudgedAfter: { name: 'nudged_after', type: 'varchar', length: 128, nullable: true },
    nudges: { type: 'integer' },
    createdAt: { name: 'created_at', type: 'bigint', transformer: bigintNumber },
    updatedAt: { name: 'updated_at', type: 'bigint', transformer: bigintNumber },
  },
  indices: [{ name: 'idx_claw_goals_group_status', columns: ['groupName', 'status'] }],
  foreignKeys: [{ target: 'ClawGroup', columnNames: ['group_name'], referencedColumnNames: ['name'], name: 'fk_claw_goals_group' }],
});

export const CLAW_GOALS_ENTITIES = [ClawGoalEntity];
