/** Shared parts of `xdog claw goal *`: the capability check, one call, and the plain-text view. */
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import { terminalSafe } from '../../../core/terminal-text.js';
import type { GoalView } from '../../../plugins/claw-goals/index.js';
import { withGateway } from './gateway.js';

/** Calls a `goal.*` method on the running gateway (UNSUPPORTED when it has no goals). */
export function callGoal(method: string, params: Record<string, unknown>): Promise<GoalView> {
  return withGateway(async (gateway): Promise<GoalView> => {
    if (!gateway.hello.capabilities.includes('goals:1')) {
      throw new XdogError(ErrorCodes.UNSUPPORTED, 'this gateway keeps no goals (no capability goals:1)', { hint: 'restart the gateway with this xdog version: xdog claw gateway restart' });
    }
    return gateway.callService(method, params);
  });
}

const usd = (value: number): string => `$${value.toFixed(6)}`;

/** The goal as a few lines: status, text, spending against its budget, deadline, check, note. */
export function renderGoal(view: GoalView): string {
  const goal = view.goal;
  if (!goal) return `group ${view.group} has no goal (set one: xdog claw goal set "TEXT")`;
  const budget = [
    `${goal.spent.tokens}${goal.budgetTokens === null ? '' : `/${goal.budgetTokens}`} tokens`,
    `${usd(goal.spent.cost)}${goal.budgetCost === null ? '' : `/${usd(goal.budgetCost)}`}`,
    `${goal.spent.calls} model calls`,
  ].join(', ');
  const lines = [
    `group ${view.group}: goal ${goal.id} (${goal.status})`,
    `  ${goal.text}`,
    `  spent: ${budget}; ${goal.nudges} continuation(s) submitted`,
    ...(goal.deadlineAt === null ? [] : [`  deadline: ${new Date(goal.deadlineAt).toISOString()}`]),
    ...(goal.checkCommand === null ? [] : [`  check: ${goal.checkCommand}`]),
    ...(goal.note === null ? [] : [`  progress: ${goal.note}`]),
    ...(goal.stopReason === null ? [] : [`  stopped: ${goal.stopReason}`]),
  ];
  return terminalSafe(lines.join('\n'));
}
