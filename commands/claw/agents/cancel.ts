import { Args } from '@oclif/core';
import type { DurableChildRecord } from '../../../plugins/children/index.js';
import { XdogCommand } from '../../base-command.js';
import { callAgents, renderChildren } from '../_lib/agents.js';
import { groupFlag } from '../_lib/gateway.js';

export default class ClawAgentsCancel extends XdogCommand {
  static override summary = "Cancel a running child agent (what it did stays done)";
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'the child id (xdog claw agents list)', required: true }) };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw agents cancel c-1a2b3c4d'];

  async run(): Promise<DurableChildRecord> {
    const { args, flags } = await this.parse(ClawAgentsCancel);
    const result = await callAgents<DurableChildRecord>('agents.cancel', { group: flags.group, id: args.id });
    if (!this.jsonEnabled()) this.log(renderChildren([result]));
    return result;
  }
}
