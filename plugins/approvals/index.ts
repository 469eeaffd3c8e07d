/**
 * The `approvals` plugin: the host's approval policy on every agent a kernel
 * builds. Outside claw it applies the top-level `approvals` section (for
 * `xdog agent chat`); in a claw group kernel, that group's `approvals`. No
 * section, no gate: nothing changes. Who is asked is the host's
 * `ApprovalBrokerToken` (docs/approvals.md).
 */
import { ContainerModule, definePlugin, type ApprovalsConfig, type Kernel } from '../../core/index.js';
import { ClawGroupToken, GatewayServiceContribution } from '../claw-gateway/tokens.js';
import { createApprovalsService } from './service.js';
import { tapApprovalGate } from './gate.js';
import { learnedRulesOf } from './learned-rules.js';

export { tapApprovalGate } from './gate.js';
export { judgeToolCall, alwaysAllowRules, globMatches, type ApprovalDecision, type JudgedCall, type LearnedRule } from './policy.js';
export { analyzeShell, preloadShellParser, splitCommandLine, type ShellAnalysis, type ShellCommand } from './shell.js';

/** The policy for the agents of `kernel`: its claw group's, else the top-level one. */
export function approvalsPolicyOf(kernel: Kernel): ApprovalsConfig | undefined {
  if (kernel.isBound(ClawGroupToken)) return kernel.config.claw?.groups?.[kernel.get(ClawGroupToken).name]?.approvals;
  return kernel.config.approvals;
}

export { createApprovalsService } from './service.js';
export { ApprovalNotifications, ClawApprovalBroker } from './claw-broker.js';
export { answerFromChannel, parseApprovalReply, type ApprovalReply } from './channel-reply.js';
export type { ApprovalRecord, ApprovalStatus, LearnedRuleRecord } from './approval-store.js';

export default definePlugin({
  name: 'approvals',
  module: new ContainerModule(({ bind }) => {
    bind(GatewayServiceContribution).toConstantValue(createApprovalsService());
  }),
  apply(kernel: Kernel) {
    const policy = approvalsPolicyOf(kernel);
    if (!policy) return;
    const learned = learnedRulesOf(kernel);
    kernel.hooks.agentCreated.tap('approvals', (agent) => void tapApprovalGate(agent.hooks, () => policy, learned));
  },
});
