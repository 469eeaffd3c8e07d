/**
 * The `plan` plugin: plan mode for claw groups. The user starts, executes,
 * revises and stops a plan (gateway methods `plan.*`, `xdog claw plan`);
 * the model keeps its steps with `update_plan`; while the plan is being
 * planned a gate holds the group's tools to reading. The state is the
 * session's `plan` sidecar, so it survives restarts and a branch forked
 * from the session starts with the plan it had (docs/plan-mode.md). It also
 * ships the `plan` skill (planning instructions, loaded only when asked).
 */
import { ContainerModule, ToolContribution, definePlugin, type Kernel } from '../../core/index.js';
import { ClawGroupToken, GatewayServiceContribution } from '../claw-gateway/tokens.js';
import { tapPlanGate } from './gate.js';
import { planInEffect } from './plan-store.js';
import { createPlanService } from './service.js';
import { createUpdatePlanTool } from './update-plan-tool.js';

export { planBlockReason, tapPlanGate } from './gate.js';
export { planInEffect } from './plan-store.js';
export { PlanNotifications, createPlanService, type PlanProblem, type PlanView } from './service.js';
export { PlanStateSchema, decodePlan, renderPlan, type PlanState, type PlanStep } from './state.js';

export default definePlugin({
  name: 'plan',
  provides: { tools: ['update_plan'], skills: ['plan'] },
  module: new ContainerModule(({ bind }) => {
    bind(GatewayServiceContribution).toConstantValue(createPlanService());
  }),
  apply(kernel: Kernel) {
    // Plan mode lives in claw groups: outside one there is no session to keep a plan in.
    if (!kernel.isBound(ClawGroupToken)) return;
    const group = kernel.get(ClawGroupToken);
    const updatePlan = createUpdatePlanTool({ store: group.store, group: group.name, clock: group.clock });
    kernel.container.bind(ToolContribution).toConstantValue(updatePlan);
    const current = async () => (await planInEffect(group.store, group.name))?.plan ?? null;
    kernel.hooks.agentCreated.tap('plan', (agent) => void tapPlanGate(agent.hooks, current, updatePlan));
  },
});
