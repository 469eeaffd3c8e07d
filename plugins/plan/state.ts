/**
 * Plan-mode state of one session (its `plan` sidecar in the store), and the
 * transitions the user's commands and the `update_plan` tool make. Pure: the
 * callers load and save. Every transition checks the revision it was given,
 * so a command or tool call based on an old plan is refused, not applied.
 */
import { z } from 'zod';
import { ErrorCodes, LIMITS, XdogError, textWithin } from '../../core/index.js';

const bytes = (limit: number) => textWithin(limit, { nonEmpty: true });

export const PlanStepSchema = z.object({ text: bytes(LIMITS.planStepBytes), status: z.enum(['pending', 'in_progress', 'completed']) }).strict();

export const PlanStateSchema = z
  .object({
    version: z.literal(1),
    /** planning: the gate holds tools to reading; executing: the plan is being carried out. */
    status: z.enum(['planning', 'executing']),
    objective: bytes(LIMITS.planObjectiveBytes),
    revision: z.number().int().positive(),
    steps: z.array(PlanStepSchema).max(LIMITS.planSteps),
    updatedAt: z.number().int().nonnegative(),
  })
  .strict();

export type PlanStep = z.infer<typeof PlanStepSchema>;
export type PlanState = z.infer<typeof PlanStateSchema>;

/** The stored value as a plan (null: no plan); anything else is STORE_CORRUPT (callers fail closed). */
export function decodePlan(stored: unknown, sessionId: string): PlanState | null {
  if (stored === null || stored === undefined) return null;
  const parsed = PlanStateSchema.safeParse(stored);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new XdogError(ErrorCodes.STORE_CORRUPT, `the plan state of session ${sessionId} is corrupt (${issue.path.join('.') || 'plan'}: ${issue.message})`, {
    hint: 'tools stay denied until it is cleared: `xdog claw plan stop`',
  });
}

function stale(plan: PlanState, revision: number): XdogError {
  return new XdogError(ErrorCodes.STALE, `the plan is at revision ${plan.revision}, not ${revision}`, { hint: 'show it again (`xdog claw plan`) and decide on the current revision' });
}

function requirePlan(plan: PlanState | null): PlanState {
  if (!plan) throw new XdogError(ErrorCodes.INVALID_STATE, 'no plan is active in this session', { hint: 'start one with `xdog claw plan start OBJECTIVE`' });
  return plan;
}

export function startPlan(current: PlanState | null, objective: string, now: number): PlanState {
  if (current) throw new XdogError(ErrorCodes.CONFLICT, `a plan is already ${current.status} in this session (revision ${current.revision})`, { hint: 'stop it first: `xdog claw plan stop`' });
  return PlanStateSchema.parse({ version: 1, status: 'planning', objective: objective.trim(), revision: 1, steps: [], updatedAt: now });
}

/** planning → executing, only at the revision the user reviewed. */
export function executePlan(current: PlanState | null, revision: number, now: number): PlanState {
  const plan = requirePlan(current);
  if (plan.revision !== revision) throw stale(plan, revision);
  if (plan.status !== 'planning') throw new XdogError(ErrorCodes.INVALID_STATE, 'the plan is already executing', { hint: '`xdog claw plan revise` returns it to planning' });
  return { ...plan, status: 'executing', revision: plan.revision + 1, updatedAt: now };
}

/** executing → planning (the gate holds tools again). */
export function revisePlan(current: PlanState | null, revision: number | undefined, now: number): PlanState {
  const plan = requirePlan(current);
  if (revision !== undefined && plan.revision !== revision) throw stale(plan, revision);
  if (plan.status !== 'executing') throw new XdogError(ErrorCodes.INVALID_STATE, 'the plan is already being planned', { hint: 'the model revises it with update_plan; `xdog claw plan execute REVISION` runs it' });
  return { ...plan, status: 'planning', revision: plan.revision + 1, updatedAt: now };
}

/** Ends plan mode; a corrupt plan may always be stopped (that is how the user clears it). */
export function checkStop(current: PlanState | null, revision: number | undefined): void {
  const plan = requirePlan(current);
  if (revision !== undefined && plan.revision !== revision) throw stale(plan, revision);
}

/** The model's update: new steps at the revision it last saw; at most one step in progress. */
export function updateSteps(current: PlanState | null, revision: number, steps: PlanStep[], now: number): PlanState {
  const plan = requirePlan(current);
  if (plan.revision !== revision) throw stale(plan, revision);
  if (steps.filter((step) => step.status === 'in_progress').length > 1) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'at most one step may be in_progress', { hint: 'mark the others pending or completed' });
  }
  return PlanStateSchema.parse({ ...plan, steps, revision: plan.revision + 1, updatedAt: now });
}

/** The plan as text for the model and the CLI. */
export function renderPlan(plan: PlanState): string {
  const marks = { pending: '[ ]', in_progress: '[>]', completed: '[x]' } as const;
  const lines = [`plan (${plan.status}, revision ${plan.revision}): ${plan.objective}`];
  for (const [index, step] of plan.steps.entries()) lines.push(`${index + 1}. ${marks[step.status]} ${step.text}`);
  if (!plan.steps.length) lines.push('(no steps yet)');
  return lines.join('\n');
}
