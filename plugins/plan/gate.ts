/**
 * The plan-mode gate: while a plan is being planned, a `beforeToolCall` tap
 * (at the policy stage, after any argument rewrite) lets through only the
 * built-in local read tools and `update_plan`. Shell, workspace writes, MCP
 * tools, extension tools and tools it does not know are blocked. A plan it
 * cannot read blocks every call. The managed memory flush before a
 * compaction stays allowed (the seed keeps it available in plan mode); it
 * still passes every other host gate.
 */
import { POLICY_GATE_STAGE, describeError, tapHook, type AgentHooks, type AgentTool, type BeforeToolCallContext, type BeforeToolCallResult, type Disposer } from '../../core/index.js';
import { isMemoryFlushTool } from '../claw-gateway/tokens.js';
import { isLocalReadOnlyTool } from '../tools/index.js';
import type { PlanState } from './state.js';

/** Why `tool` may not run under `plan`, or undefined when it may. */
export function planBlockReason(plan: PlanState | null, tool: AgentTool, remote: boolean, updatePlan: AgentTool | undefined): string | undefined {
  if (!plan || plan.status !== 'planning') return undefined;
  if (tool === updatePlan || (!remote && (isLocalReadOnlyTool(tool) || isMemoryFlushTool(tool)))) return undefined;
  return `plan mode: "${tool.name}" is not allowed while planning (only read, ls, grep, find, current_time and update_plan); the user runs the plan with \`plan execute ${plan.revision}\``;
}

/** Taps the gate into one agent's hooks; `plan()` reads the plan in effect (rejecting when it cannot). */
export function tapPlanGate(hooks: AgentHooks, plan: () => Promise<PlanState | null>, updatePlan: AgentTool | undefined): Disposer {
  return tapHook(
    hooks.beforeToolCall,
    'plan:gate',
    async (context: BeforeToolCallContext): Promise<BeforeToolCallResult | undefined> => {
      let current;
      try {
        current = await plan();
      } catch (error) {
        return { block: true, reason: `the plan state could not be read, so every tool call is denied: ${describeError(error)}` };
      }
      const reason = planBlockReason(current, context.tool, context.remote, updatePlan);
      return reason ? { block: true, reason } : undefined;
    },
    { stage: POLICY_GATE_STAGE },
  );
}
