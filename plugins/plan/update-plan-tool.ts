/**
 * `update_plan`: how the model keeps the plan's steps (pending, in progress,
 * completed). It names the revision it last saw; an update based on an older
 * plan is refused with the current revision, never merged.
 */
import { z } from 'zod';
import { describeError, type AgentTool, type Clock } from '../../core/index.js';
import type { SessionStore } from '../sessions/tokens.js';
import { activeSessionOf, loadPlan, savePlan } from './plan-store.js';
import { PlanStepSchema, renderPlan, updateSteps } from './state.js';

const UpdatePlanArgs = z
  .object({
    revision: z.number().int().positive().describe('The plan revision you last saw (shown as "revision N"); an older one is refused.'),
    steps: z.array(PlanStepSchema).describe('The whole list of steps, in order; each { text, status: pending | in_progress | completed }, at most one in_progress.'),
  })
  .strict();

export interface UpdatePlanOptions {
  store: SessionStore;
  group: string;
  clock: Clock;
}

export function createUpdatePlanTool(options: UpdatePlanOptions): AgentTool<z.infer<typeof UpdatePlanArgs>> {
  return {
    name: 'update_plan',
    description:
      'Record the plan for the current objective as a list of steps, each pending, in_progress or completed. Send the whole list each time, with the revision you last saw. ' +
      'While the plan is being planned, only reading tools work; the user decides when it is executed.',
    parameters: UpdatePlanArgs,
    async execute(args) {
      try {
        const sessionId = await activeSessionOf(options.store, options.group);
        const next = updateSteps(await loadPlan(options.store, sessionId), args.revision, args.steps, options.clock.now());
        await savePlan(options.store, sessionId, next);
        return { content: [{ type: 'text', text: renderPlan(next) }], details: next };
      } catch (error) {
        return { content: [{ type: 'text', text: `Error: ${describeError(error)}` }], isError: true };
      }
    },
  };
}
