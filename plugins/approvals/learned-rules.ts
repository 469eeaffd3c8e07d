/**
 * Where a group kernel's approval gate finds the group's learned ("always
 * allow") rules: the approvals gateway service binds a reader of the store
 * into each group kernel that has an `approvals` section. Outside claw
 * nothing is bound and no rule is learned.
 */
import { token, type Kernel } from '../../core/index.js';
import type { LearnedRule, LearnedRules } from './policy.js';

export const LearnedRulesToken = token<LearnedRules>('ApprovalLearnedRules');

/** The learned rules of `kernel`'s group, read when asked; none outside claw. */
export function learnedRulesOf(kernel: Kernel): LearnedRules {
  return (): Promise<readonly LearnedRule[]> => (kernel.container.isBound(LearnedRulesToken) ? kernel.get(LearnedRulesToken)() : Promise.resolve([]));
}
