import { Args } from '@oclif/core';
import type { ChildInputRecord } from '../../../plugins/children/index.js';
import { XdogCommand } from '../../base-command.js';
import { imageFlag, readImages, sendChildInput } from '../_lib/agents.js';
import { groupFlag } from '../_lib/gateway.js';

export default class ClawAgentsSteer extends XdogCommand {
  static override summary = 'Steer a running child agent (taken in at its next checkpoint)';
  static override enableJsonFlag = true;
  static override strict = false;
  static override args = {
    id: Args.string({ description: 'the child id (xdog claw agents list)', required: true }),
    text: Args.string({ description: 'the message', required: true }),
  };
  static override flags = { group: groupFlag, image: imageFlag };
  static override examples = ['<%= config.bin %> claw agents steer c-1a2b3c4d "look in src/ only"'];

  async run(): Promise<ChildInputRecord> {
    const { args, argv, flags } = await this.parse(ClawAgentsSteer);
    const input = await sendChildInput('agents.steer', flags.group, args.id, argv as string[], await readImages(flags.image));
    if (!this.jsonEnabled()) this.log(`input #${input.id} accepted for ${args.id}`);
    return input;
  }
}
