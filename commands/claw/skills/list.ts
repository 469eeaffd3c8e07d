import type { SkillsView } from '../../../plugins/claw-skills/index.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag } from '../_lib/gateway.js';
import { callSkills, renderSkills } from '../_lib/skills.js';

export default class ClawSkillsList extends XdogCommand {
  static override summary = "List the skills a group's sessions can load, and what its active session has loaded";
  static override description =
    'Skills come from installed plugins and the directories under skills.dirs in the config (a relative directory resolves against the group workspace). ' +
    'A skill loaded for the session is in the system prompt of every request; one loaded for the next turn only in the next run.';
  static override enableJsonFlag = true;
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw skills list', '<%= config.bin %> claw skills list --group ops --json'];

  async run(): Promise<SkillsView> {
    const { flags } = await this.parse(ClawSkillsList);
    const view = await callSkills('skills.list', { group: flags.group });
    if (!this.jsonEnabled()) this.log(renderSkills(view));
    return view;
  }
}
