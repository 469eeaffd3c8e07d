import { Args, Flags } from '@oclif/core';
import { XdogCommand } from '../../base-command.js';
import type { GoalView } from '../../../plugins/claw-goals/index.js';
import { groupFlag } from '../_lib/gateway.js';
import { callGoal, renderGoal } from '../_lib/goal.js';
import { parseDuration } from '../_lib/schedule.js';

export default class ClawGoalSet extends XdogCommand {
  static override summary = 'Give a group a goal: while the group is idle, the gateway asks its model to continue toward it until the model says it is done';
  static override description =
    'One continuation input is submitted per idle period, never while a plan awaits approval, never past the budget or the deadline. The model ends the goal with goal_update (done: true); with --check, only once that command exits 0 in the workspace. See docs/goals.md.';
  static override enableJsonFlag = true;
  static override args = { text: Args.string({ description: 'what should be true when the goal is met', required: true }) };
  static override flags = {
    group: groupFlag,
    'budget-tokens': Flags.integer({ description: "the most tokens the goal's own inputs may use (input, output and cache, summed)", min: 1 }),
    'budget-cost': Flags.string({ description: "the most US dollars the goal's own inputs may cost (needs known prices)" }),
    deadline: Flags.string({ description: 'stop continuing after this long, e.g. 30m, 2h, 1d' }),
    check: Flags.string({ description: 'a bash command run in the workspace when the model says done; the goal is done only when it exits 0' }),
  };
  static override examples = [
    '<%= config.bin %> claw goal set "all tests in test/ pass" --check "npm test" --budget-cost 2 --deadline 2h',
    '<%= config.bin %> claw goal set "summarize every file in notes/" --budget-tokens 200000',
  ];

  async run(): Promise<GoalView> {
    const { args, flags } = await this.parse(ClawGoalSet);
    const cost = flags['budget-cost'] === undefined ? undefined : this.cost(flags['budget-cost']);
    const view = await callGoal('goal.set', {
      group: flags.group,
      text: args.text,
      ...(flags['budget-tokens'] === undefined ? {} : { budgetTokens: flags['budget-tokens'] }),
      ...(cost === undefined ? {} : { budgetCost: cost }),
      ...(flags.deadline === undefined ? {} : { deadlineSeconds: parseDuration(flags.deadline, '--deadline') }),
      ...(flags.check === undefined ? {} : { check: flags.check }),
    });
    if (!this.jsonEnabled()) this.log(renderGoal(view));
    return view;
  }

  private cost(text: string): number {
    const value = Number(text);
    if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(value > 0)) this.error(`--budget-cost "${text}" is not an amount of US dollars above 0`, { exit: 2, suggestions: ['e.g. --budget-cost 2.50'] });
    return value;
  }
}
