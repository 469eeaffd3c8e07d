import { Args } from '@oclif/core';
import type { ApprovalRecord } from '../../../plugins/approvals/index.js';
import { XdogCommand } from '../../base-command.js';
import { answererName, approvalIdArg } from '../_lib/approvals.js';
import { withGateway } from '../_lib/gateway.js';

export default class ClawApprovalsDeny extends XdogCommand {
  static override summary = 'Deny a waiting tool call; the model is told the reason';
  static override description = 'Refused when someone else answered first (the answer that stands is named).';
  static override enableJsonFlag = true;
  static override strict = false;
  static override args = { id: approvalIdArg, reason: Args.string({ description: 'why (the model sees it); the rest of the line', required: true }) };
  static override examples = ['<%= config.bin %> claw approvals deny 7 "keep the build directory"'];

  async run(): Promise<{ approval: ApprovalRecord }> {
    const { args, argv } = await this.parse(ClawApprovalsDeny);
    const reason = (argv as string[]).slice(1).join(' ') || args.reason;
    const answer = await withGateway((gateway) => gateway.callService('approvals.deny', { id: args.id, reason, by: answererName() }));
    if (!this.jsonEnabled()) this.log(`approval ${args.id}: denied`);
    return answer;
  }
}
