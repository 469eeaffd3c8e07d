import { XdogCommand } from '../../base-command.js';
import type { GoalView } from '../../../plugins/claw-goals/index.js';
import { groupFlag } from '../_lib/gateway.js';
import { callGoal, renderGoal } from '../_lib/goal.js';

export default class ClawGoalDone extends XdogCommand {
  static override summary = "Mark a group's goal done (a person's word needs no check): no continuation is submitted any more";
  static override enableJsonFlag = true;
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw goal done'];

  async run(): Promise<GoalView> {
    const { flags } = await this.parse(ClawGoalDone);
    const view = await callGoal('goal.done', { group: flags.group });
    if (!this.jsonEnabled()) this.log(renderGoal(view));
    return view;
  }
}
