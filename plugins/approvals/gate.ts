/**
 * The approval gate: a `beforeToolCall` tap at APPROVAL_STAGE (after the
 * read-only and plan gates, which deny first) that judges each call against
 * the host's `approvals` policy: allow (nothing), deny (`block`) or ask (the
 * agent hands the call to its ApprovalBroker). A policy it cannot apply
 * (the shell parser failing to load) asks rather than allows.
 */
import { APPROVAL_STAGE, describeError, tapHook, type AgentHooks, type ApprovalsConfig, type BeforeToolCallContext, type BeforeToolCallResult, type Disposer } from '../../core/index.js';
import { isLocalReadOnlyTool } from '../tools/index.js';
import { judgeToolCall, type LearnedRules } from './policy.js';

/** Taps the gate into one agent's hooks; `policy()` gives the policy in effect for each call, `learned` the rules a person added. */
export function tapApprovalGate(hooks: AgentHooks, policy: () => ApprovalsConfig, learned?: LearnedRules): Disposer {
  return tapHook(
    hooks.beforeToolCall,
    'approvals:policy',
    async (context: BeforeToolCallContext): Promise<BeforeToolCallResult | undefined> => {
      let decision;
      try {
        decision = await judgeToolCall(policy(), { tool: context.tool.name, args: context.args, readOnly: !context.remote && isLocalReadOnlyTool(context.tool) }, learned);
      } catch (error) {
        return { ask: true, reason: `the approval rules could not be applied (${describeError(error)})` };
      }
      if (decision.action === 'allow') return undefined;
      return decision.action === 'deny' ? { block: true, reason: decision.reason } : { ask: true, reason: decision.reason };
    },
    { stage: APPROVAL_STAGE },
  );
}
