/**
 * The `claw-goals` plugin (docs/goals.md): a group's goal, kept going by the
 * goals service while the group is idle, ended by the model's `goal_update`
 * (and its check command) or by a person; and the budgets (the group's and
 * the goal's) checked before each model call on the gateway's `spendCheck`
 * hook. The model's tool lives in group kernels only.
 */
import { ContainerModule, ToolContribution, definePlugin, tapHook, type Kernel } from '../../core/index.js';
import { ClawGroupToken, GatewayServiceContribution } from '../claw-gateway/tokens.js';
import { GoalStore } from './goal-store.js';
import { createGoalService } from './service.js';
import { createGoalUpdateTool } from './tool.js';

export { GOAL_ORIGIN, GOALS_CAPABILITY, GoalNotifications, continuationText, createGoalService, type GoalView } from './service.js';
export { GOAL_STATUSES, GoalStore, type Goal, type GoalStatus, type NewGoal } from './goal-store.js';
export { GOAL_UPDATE_TOOL, createGoalUpdateTool } from './tool.js';
export { groupBudgetRefusal, goalBudgetRefusal, startOfDay } from './budgets.js';
export { runGoalCheck, type CheckOutcome } from './check.js';

export default definePlugin({
  name: 'claw-goals',
  provides: { tools: ['goal_update'] },
  module: new ContainerModule(({ bind }) => {
    bind(GatewayServiceContribution).toConstantValue(createGoalService());
  }),
  apply(kernel: Kernel) {
    // Goals belong to claw groups: outside one there is nothing to keep going.
    if (!kernel.isBound(ClawGroupToken)) return;
    const group = kernel.get(ClawGroupToken);
    const goals = new GoalStore(group.store);
    const tool = createGoalUpdateTool({ goals, group: group.name, workspace: group.workspace, clock: group.clock });
    kernel.container.bind(ToolContribution).toConstantValue(tool);
    // The goal is retained state of the group: a compaction summary keeps it in view.
    kernel.hooks.agentCreated.tap('claw-goals', (agent) =>
      void tapHook(agent.hooks.compactionSummary, 'claw-goals', async (summary: string) => {
        const goal = await goals.open(group.name);
        return goal ? `${summary}\n\nThe group's goal (${goal.status}): ${goal.text}${goal.note ? `\nProgress so far: ${goal.note}` : ''}` : summary;
      }),
    );
  },
});
