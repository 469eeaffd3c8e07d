import { Flags } from '@oclif/core';
import type { ApprovalRecord } from '../../../plugins/approvals/index.js';
import { XdogCommand } from '../../base-command.js';
import { renderApprovalLine } from '../_lib/approvals.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';

export default class ClawApprovalsList extends XdogCommand {
  static override summary = 'List tool calls waiting for approval (--all: answered ones too)';
  static override enableJsonFlag = true;
  static override flags = { group: groupFlag, all: Flags.boolean({ description: 'include answered and expired approvals' }) };
  static override examples = ['<%= config.bin %> claw approvals list', '<%= config.bin %> claw approvals list --all --json'];

  async run(): Promise<{ approvals: ApprovalRecord[] }> {
    const { flags } = await this.parse(ClawApprovalsList);
    const answer = await withGateway((gateway) => gateway.callService('approvals.list', { ...(flags.group ? { group: flags.group } : {}), ...(flags.all ? { all: true } : {}) }));
    if (!this.jsonEnabled()) this.log(answer.approvals.length ? answer.approvals.map(renderApprovalLine).join('\n') : 'no approvals waiting');
    return answer;
  }
}
