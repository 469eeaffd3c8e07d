import type { DurableChildRecord } from '../../../plugins/children/index.js';
import { XdogCommand } from '../../base-command.js';
import { callAgents, renderChildren } from '../_lib/agents.js';
import { groupFlag } from '../_lib/gateway.js';

export default class ClawAgentsList extends XdogCommand {
  static override summary = "List a group's child agents";
  static override enableJsonFlag = true;
  static override args = {};
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw agents list'];

  async run(): Promise<DurableChildRecord[]> {
    const { flags } = await this.parse(ClawAgentsList);
    const result = await callAgents<DurableChildRecord[]>('agents.list', { group: flags.group });
    if (!this.jsonEnabled()) this.log(renderChildren(result));
    return result;
  }
}
