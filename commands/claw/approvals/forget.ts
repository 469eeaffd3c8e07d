import { Args } from '@oclif/core';
import type { LearnedRuleRecord } from '../../../plugins/approvals/index.js';
import { XdogCommand } from '../../base-command.js';
import { renderLearnedRule } from '../_lib/approvals.js';
import { withGateway } from '../_lib/gateway.js';

export default class ClawApprovalsForget extends XdogCommand {
  static override summary = 'Remove an always-allow rule: its calls are asked again';
  static override enableJsonFlag = true;
  static override args = { rule: Args.integer({ description: 'the rule id (see xdog claw approvals rules)', required: true, min: 1 }) };
  static override examples = ['<%= config.bin %> claw approvals forget 3'];

  async run(): Promise<{ rule: LearnedRuleRecord }> {
    const { args } = await this.parse(ClawApprovalsForget);
    const answer: { rule: LearnedRuleRecord } = await withGateway((gateway) => gateway.callService('approvals.forget', { rule: args.rule }));
    if (!this.jsonEnabled()) this.log(`forgot ${renderLearnedRule(answer.rule)}`);
    return answer;
  }
}
