import type { LearnedRuleRecord } from '../../../plugins/approvals/index.js';
import { XdogCommand } from '../../base-command.js';
import { renderLearnedRule } from '../_lib/approvals.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';

export default class ClawApprovalsRules extends XdogCommand {
  static override summary = 'List the always-allow rules a group learned from approvals (approve --always)';
  static override description = 'The configured approvals.rules are judged first; these only replace approvals.mode\'s default of asking. Remove one with `xdog claw approvals forget RULE`.';
  static override enableJsonFlag = true;
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw approvals rules', '<%= config.bin %> claw approvals rules --group ops --json'];

  async run(): Promise<{ rules: LearnedRuleRecord[] }> {
    const { flags } = await this.parse(ClawApprovalsRules);
    const answer: { rules: LearnedRuleRecord[] } = await withGateway((gateway) => gateway.callService('approvals.rules', flags.group ? { group: flags.group } : {}));
    if (!this.jsonEnabled()) this.log(answer.rules.length ? answer.rules.map(renderLearnedRule).join('\n') : 'no always-allow rules');
    return answer;
  }
}
