import { XdogCommand } from '../../base-command.js';
import type { GoalView } from '../../../plugins/claw-goals/index.js';
import { groupFlag } from '../_lib/gateway.js';
import { callGoal, renderGoal } from '../_lib/goal.js';

export default class ClawGoalAbandon extends XdogCommand {
  static override summary = "Abandon a group's goal: no continuation is submitted any more";
  static override enableJsonFlag = true;
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw goal abandon'];

  async run(): Promise<GoalView> {
    const { flags } = await this.parse(ClawGoalAbandon);
    const view = await callGoal('goal.abandon', { group: flags.group });
    if (!this.jsonEnabled()) this.log(renderGoal(view));
    return view;
  }
}
