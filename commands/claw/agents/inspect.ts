import { Args } from '@oclif/core';
import type { ChildInputRecord, DurableChildRecord } from '../../../plugins/children/index.js';
import { XdogCommand } from '../../base-command.js';
import { callAgents, renderChildren, renderInputs } from '../_lib/agents.js';
import { groupFlag } from '../_lib/gateway.js';

export default class ClawAgentsInspect extends XdogCommand {
  static override summary = "Show one child agent with its journaled inputs";
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'the child id (xdog claw agents list)', required: true }) };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw agents inspect c-1a2b3c4d'];

  async run(): Promise<DurableChildRecord & { inputs: ChildInputRecord[] }> {
    const { args, flags } = await this.parse(ClawAgentsInspect);
    const result = await callAgents<DurableChildRecord & { inputs: ChildInputRecord[] }>('agents.inspect', { group: flags.group, id: args.id });
    if (!this.jsonEnabled()) this.log([renderChildren([result]), ...(result.inputs.length ? [renderInputs(result.inputs)] : [])].join('\n'));
    return result;
  }
}
