import { Flags } from '@oclif/core';
import type { DurableChildRecord } from '../../../plugins/children/index.js';
import { XdogCommand } from '../../base-command.js';
import { callAgents, renderChildren } from '../_lib/agents.js';
import { groupFlag } from '../_lib/gateway.js';

export default class ClawAgentsWait extends XdogCommand {
  static override summary = 'Wait until child agents ended (default: every child this gateway runs), then show them';
  static override enableJsonFlag = true;
  static override strict = false;
  static override flags = {
    group: groupFlag,
    timeout: Flags.integer({ description: 'seconds to wait at most (at most 240)', min: 1, max: 240, default: 130 }),
  };
  static override examples = ['<%= config.bin %> claw agents wait', '<%= config.bin %> claw agents wait c-1a2b3c4d c-5e6f7a8b --timeout 60'];

  async run(): Promise<DurableChildRecord[]> {
    const { argv, flags } = await this.parse(ClawAgentsWait);
    const ids = argv as string[];
    const children = await callAgents<DurableChildRecord[]>('agents.wait', { group: flags.group, ...(ids.length ? { ids } : {}), timeoutSeconds: flags.timeout }, { timeoutMs: (flags.timeout + 10) * 1000 });
    if (!this.jsonEnabled()) this.log(renderChildren(children));
    return children;
  }
}
