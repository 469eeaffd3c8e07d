import { Args, Flags } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import type { SkillsView } from '../../../plugins/claw-skills/index.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag } from '../_lib/gateway.js';
import { callSkills, renderSelection } from '../_lib/skills.js';

export default class ClawSkillsUnload extends XdogCommand {
  static override summary = "Unload skills from a group's active session";
  static override description =
    'Removes the named skills, whether loaded for the session or for the next turn, or all of them with --all. ' +
    'Saved before the command returns; while a turn is running, it applies from the next one.';
  static override enableJsonFlag = true;
  static override strict = false;
  static override args = { name: Args.string({ description: 'a skill to unload (several may follow)' }) };
  static override flags = {
    group: groupFlag,
    all: Flags.boolean({ description: 'unload every skill of the session', default: false }),
    expect: Flags.string({ description: 'the active-session id you expect (refused if it changed since)' }),
  };
  static override examples = ['<%= config.bin %> claw skills unload release-notes', '<%= config.bin %> claw skills unload --all'];

  async run(): Promise<SkillsView> {
    const { argv, flags } = await this.parse(ClawSkillsUnload);
    const names = argv as string[];
    if (flags.all === (names.length > 0)) {
      throw new XdogError(ErrorCodes.USAGE, flags.all ? 'give either skill names or --all, not both' : 'name the skills to unload, or give --all', { hint: 'xdog claw skills list shows what is loaded' });
    }
    const view = await callSkills('skills.unload', {
      group: flags.group,
      ...(flags.all ? { all: true } : { names }),
      ...(flags.expect === undefined ? {} : { expectedSessionId: flags.expect }),
    });
    if (!this.jsonEnabled()) this.log(renderSelection(view));
    return view;
  }
}
