/**
 * `goal_update`: how the model reports on its group's goal. A progress note
 * is saved as it is; `done: true` ends the goal only when its check command
 * (if it has one) exits 0 in the workspace, otherwise the model is told the
 * check failed and the goal stays active. A person's word (`goal done`) needs
 * no check; the model's does.
 */
import { describeError, type AgentTool, type AgentToolResult, type Clock, type JsonSchema } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { runGoalCheck } from './check.js';
import type { GoalStore } from './goal-store.js';

export const GOAL_UPDATE_TOOL = 'goal_update';

const PARAMETERS: JsonSchema = {
  type: 'object',
  properties: {
    note: { type: 'string', description: `Progress so far, one short paragraph (at most ${LIMITS.goalNoteBytes} bytes); it is shown to people and in each continuation.` },
    done: { type: 'boolean', description: 'true when the goal is met (its check command, if any, must then pass).' },
  },
  additionalProperties: false,
};

const text = (value: string, isError = false): AgentToolResult => ({ content: [{ type: 'text', text: value }], ...(isError ? { isError: true } : {}) });

export function createGoalUpdateTool(options: { goals: GoalStore; group: string; workspace: string; clock: Clock }): AgentTool<Record<string, unknown>> {
  const { goals, group, workspace, clock } = options;
  return {
    name: GOAL_UPDATE_TOOL,
    description: "Report on this group's goal: a progress note, and done: true when the goal is met (say DONE). A goal with a check command is done only when that command passes.",
    parameters: PARAMETERS,
    async execute(args) {
      try {
        const note = args.note;
        const done = args.done;
        if (note !== undefined && typeof note !== 'string') return text('Error: note must be text', true);
        if (done !== undefined && typeof done !== 'boolean') return text('Error: done must be true or false', true);
        let goal = await goals.open(group);
        if (!goal) return text(`Error: group ${group} has no open goal; there is nothing to update`, true);
        if (note !== undefined) goal = (await goals.setNote(goal.id, note, clock.now())) ?? goal;
        if (done !== true) return text(`Noted. Goal (${goal.status}): ${goal.text}`);
        if (goal.checkCommand) {
          const check = await runGoalCheck(goal.checkCommand, workspace);
          if (!check.passed) {
            return text(`The goal is not done: its check \`${goal.checkCommand}\` failed (${check.problem}).${check.output ? `\nOutput:\n${check.output}` : ''}\nThe goal stays active: fix what the check reports, then call goal_update with done: true again.`, true);
          }
        }
        const ended = await goals.move(goal.id, ['active', 'paused'], 'done', clock.now(), { stopReason: null });
        if (!ended) return text('Error: the goal changed meanwhile (a person paused, ended or replaced it); it was not marked done', true);
        return text(`DONE: the goal is met${goal.checkCommand ? ' and its check passed' : ''}. No more continuations will be sent.`);
      } catch (error) {
        return text(`Error: ${describeError(error)}`, true);
      }
    },
  };
}
