import { XdogCommand } from '../../base-command.js';
import type { GoalView } from '../../../plugins/claw-goals/index.js';
import { groupFlag } from '../_lib/gateway.js';
import { callGoal, renderGoal } from '../_lib/goal.js';

export default class ClawGoalPause extends XdogCommand {
  static override summary = "Pause a group's goal: no continuation is submitted until it is resumed";
  static override enableJsonFlag = true;
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw goal pause'];

  async run(): Promise<GoalView> {
    const { flags } = await this.parse(ClawGoalPause);
    const view = await callGoal('goal.pause', { group: flags.group });
    if (!this.jsonEnabled()) this.log(renderGoal(view));
    return view;
  }
}
