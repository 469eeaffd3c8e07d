import { Flags } from '@oclif/core';
import type { ApprovalRecord, LearnedRuleRecord } from '../../../plugins/approvals/index.js';
import { XdogCommand } from '../../base-command.js';
import { answererName, approvalIdArg, renderLearnedRule } from '../_lib/approvals.js';
import { withGateway } from '../_lib/gateway.js';

export default class ClawApprovalsApprove extends XdogCommand {
  static override summary = 'Approve a waiting tool call: the group runs it once and its run goes on';
  static override description =
    'Refused when someone else answered first (the answer that stands is named). With --always the group also stops asking for this call: ' +
    'for bash exactly this command (every word), for another tool the tool with any arguments. It only replaces approvals.mode\'s default: ' +
    'a call a configured rule asks for or denies, or a command that cannot be read for certain, is refused and nothing is answered.';
  static override enableJsonFlag = true;
  static override args = { id: approvalIdArg };
  static override flags = { always: Flags.boolean({ description: 'also allow this call from now on without asking (see xdog claw approvals rules)' }) };
  static override examples = ['<%= config.bin %> claw approvals approve 7', '<%= config.bin %> claw approvals approve 7 --always'];

  async run(): Promise<{ approval: ApprovalRecord; rules?: LearnedRuleRecord[] }> {
    const { args, flags } = await this.parse(ClawApprovalsApprove);
    const answer: { approval: ApprovalRecord; rules?: LearnedRuleRecord[] } = await withGateway((gateway) =>
      gateway.callService('approvals.approve', { id: args.id, by: answererName(), ...(flags.always ? { always: true } : {}) }),
    );
    if (!this.jsonEnabled()) {
      this.log(`approval ${args.id}: approved`);
      for (const rule of answer.rules ?? []) this.log(`always allowed from now on: ${renderLearnedRule(rule)}`);
    }
    return answer;
  }
}
