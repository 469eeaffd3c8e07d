import { Flags } from '@oclif/core';
import { XdogCommand } from '../../base-command.js';
import type { GoalView } from '../../../plugins/claw-goals/index.js';
import { groupFlag } from '../_lib/gateway.js';
import { callGoal, renderGoal } from '../_lib/goal.js';

export default class ClawGoalResume extends XdogCommand {
  static override summary = "Resume a group's paused goal, or one a budget or its deadline stopped (give it a larger budget)";
  static override enableJsonFlag = true;
  static override flags = {
    group: groupFlag,
    'budget-tokens': Flags.integer({ description: 'a new token budget for the goal (a total, counting what it spent so far)', min: 1 }),
    'budget-cost': Flags.string({ description: 'a new cost budget in US dollars (a total, counting what it spent so far)' }),
  };
  static override examples = ['<%= config.bin %> claw goal resume', '<%= config.bin %> claw goal resume --budget-tokens 400000'];

  async run(): Promise<GoalView> {
    const { flags } = await this.parse(ClawGoalResume);
    const cost = flags['budget-cost'] === undefined ? undefined : Number(flags['budget-cost']);
    if (cost !== undefined && !(cost > 0)) this.error(`--budget-cost "${flags['budget-cost']}" is not an amount of US dollars above 0`, { exit: 2 });
    const view = await callGoal('goal.resume', {
      group: flags.group,
      ...(flags['budget-tokens'] === undefined ? {} : { budgetTokens: flags['budget-tokens'] }),
      ...(cost === undefined ? {} : { budgetCost: cost }),
    });
    if (!this.jsonEnabled()) this.log(renderGoal(view));
    return view;
  }
}
