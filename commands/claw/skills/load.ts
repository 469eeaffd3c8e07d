import { Args, Flags } from '@oclif/core';
import type { SkillsView } from '../../../plugins/claw-skills/index.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag } from '../_lib/gateway.js';
import { callSkills, renderSelection } from '../_lib/skills.js';

export default class ClawSkillsLoad extends XdogCommand {
  static override summary = "Load skills into a group's active session";
  static override description =
    'Without --turn the skills stay loaded: their instructions go into the system prompt of every request of the session (and of sessions forked from it). ' +
    'With --turn they go into the next run only and are gone once it starts. The selection is saved before the command returns; ' +
    'while a turn is running, it applies from the next one. Unknown names fail and list the available skills.';
  static override enableJsonFlag = true;
  static override strict = false;
  static override args = { name: Args.string({ description: 'a skill to load (several may follow)', required: true }) };
  static override flags = {
    group: groupFlag,
    turn: Flags.boolean({ description: 'for the next turn only', default: false }),
    expect: Flags.string({ description: 'the active-session id you expect (refused if it changed since)' }),
  };
  static override examples = ['<%= config.bin %> claw skills load release-notes', '<%= config.bin %> claw skills load review style --turn'];

  async run(): Promise<SkillsView> {
    const { argv, flags } = await this.parse(ClawSkillsLoad);
    const view = await callSkills('skills.load', {
      group: flags.group,
      names: argv as string[],
      scope: flags.turn ? 'turn' : 'session',
      ...(flags.expect === undefined ? {} : { expectedSessionId: flags.expect }),
    });
    if (!this.jsonEnabled()) this.log(renderSelection(view));
    return view;
  }
}
