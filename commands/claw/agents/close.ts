import { Args } from '@oclif/core';
import { XdogCommand } from '../../base-command.js';
import { callAgents } from '../_lib/agents.js';
import { groupFlag } from '../_lib/gateway.js';

export default class ClawAgentsClose extends XdogCommand {
  static override summary = "Forget an ended child agent and its transcript";
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'the child id (xdog claw agents list)', required: true }) };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw agents close c-1a2b3c4d'];

  async run(): Promise<{ closed: string }> {
    const { args, flags } = await this.parse(ClawAgentsClose);
    const result = await callAgents<{ closed: string }>('agents.close', { group: flags.group, id: args.id });
    if (!this.jsonEnabled()) this.log(`closed ${result.closed}`);
    return result;
  }
}
