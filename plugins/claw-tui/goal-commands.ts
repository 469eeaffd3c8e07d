/**
 * `/goal` in the TUI: shows the group's goal, or sets, pauses, resumes,
 * ends or abandons it through the gateway's `goal.*` methods (the same as
 * `xdog claw goal`). Budgets and checks are set from the CLI.
 */
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { terminalSafe } from '../../core/terminal-text.js';
import type { GoalView } from '../claw-goals/index.js';
import type { ClawTui } from './app.js';

const VERBS = ['pause', 'resume', 'done', 'abandon'] as const;

/** One line for the timeline: "goal (active, 2 continuations, 3000/5000 tokens): TEXT". */
export function goalLine(view: GoalView): string {
  const goal = view.goal;
  if (!goal) return 'no goal: /goal set TEXT gives the group one';
  const budget = goal.budgetTokens === null ? '' : `, ${goal.spent.tokens}/${goal.budgetTokens} tokens`;
  const cost = goal.budgetCost === null ? '' : `, $${goal.spent.cost.toFixed(4)}/$${goal.budgetCost.toFixed(4)}`;
  const note = goal.note ? ` — ${goal.note}` : '';
  const stopped = goal.stopReason ? ` (stopped: ${goal.stopReason})` : '';
  return terminalSafe(`goal (${goal.status}, ${goal.nudges} continuation${goal.nudges === 1 ? '' : 's'}${budget}${cost}): ${goal.text}${note}${stopped}`);
}

export async function runGoalCommand(app: ClawTui, args: string): Promise<void> {
  const group = app.group?.name;
  const [verb = '', ...rest] = args.split(/\s+/u);
  let view: GoalView;
  if (verb === '') view = (await app.call('goal.get', { group })) as GoalView;
  else if (verb === 'set') {
    const text = args.slice(3).trim();
    if (!text) throw new XdogError(ErrorCodes.USAGE, '/goal set needs the goal', { hint: '/goal set all tests pass' });
    view = (await app.call('goal.set', { group, text })) as GoalView;
  } else if ((VERBS as readonly string[]).includes(verb) && rest.length === 0) view = (await app.call(`goal.${verb}`, { group })) as GoalView;
  else throw new XdogError(ErrorCodes.USAGE, `/goal ${verb}: unknown`, { hint: '/goal, /goal set TEXT, /goal pause|resume|done|abandon' });
  // A change is also announced (goal.changed) to every client; showing it here makes /goal answer at once.
  if (verb === '') app.notice(goalLine(view));
}
