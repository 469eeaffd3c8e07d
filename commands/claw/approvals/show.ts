import type { ApprovalRecord } from '../../../plugins/approvals/index.js';
import { XdogCommand } from '../../base-command.js';
import { approvalIdArg, renderApproval } from '../_lib/approvals.js';
import { withGateway } from '../_lib/gateway.js';

export default class ClawApprovalsShow extends XdogCommand {
  static override summary = 'Show one approval with its full arguments';
  static override enableJsonFlag = true;
  static override args = { id: approvalIdArg };
  static override examples = ['<%= config.bin %> claw approvals show 7'];

  async run(): Promise<{ approval: ApprovalRecord }> {
    const { args } = await this.parse(ClawApprovalsShow);
    const answer = await withGateway((gateway) => gateway.callService('approvals.show', { id: args.id }));
    if (!this.jsonEnabled()) this.log(renderApproval(answer.approval));
    return answer;
  }
}
