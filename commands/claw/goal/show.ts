import { XdogCommand } from '../../base-command.js';
import type { GoalView } from '../../../plugins/claw-goals/index.js';
import { groupFlag } from '../_lib/gateway.js';
import { callGoal, renderGoal } from '../_lib/goal.js';

export default class ClawGoalShow extends XdogCommand {
  static override summary = "Show a group's goal: its status, what it spent against its budget, its progress note";
  static override enableJsonFlag = true;
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw goal show', '<%= config.bin %> claw goal show --group main --json'];

  async run(): Promise<GoalView> {
    const { flags } = await this.parse(ClawGoalShow);
    const view = await callGoal('goal.get', { group: flags.group });
    if (!this.jsonEnabled()) this.log(renderGoal(view));
    return view;
  }
}
