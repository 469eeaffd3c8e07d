import type { ApprovalRecord } from '../../../plugins/approvals/index.js';
import { XdogCommand } from '../../base-command.js';
import { answererName, approvalIdArg } from '../_lib/approvals.js';
import { withGateway } from '../_lib/gateway.js';

export default class ClawApprovalsApprove extends XdogCommand {
  static override summary = 'Approve a waiting tool call: the group runs it once and its run goes on';
  static override description = 'Refused when someone else answered first (the answer that stands is named).';
  static override enableJsonFlag = true;
  static override args = { id: approvalIdArg };
  static override examples = ['<%= config.bin %> claw approvals approve 7'];

  async run(): Promise<{ approval: ApprovalRecord }> {
    const { args } = await this.parse(ClawApprovalsApprove);
    const answer = await withGateway((gateway) => gateway.callService('approvals.approve', { id: args.id, by: answererName() }));
    if (!this.jsonEnabled()) this.log(`approval ${args.id}: approved`);
    return answer;
  }
}
