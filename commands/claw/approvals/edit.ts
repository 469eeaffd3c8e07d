import { Args } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../../core/index.js';
import type { ApprovalRecord } from '../../../plugins/approvals/index.js';
import { XdogCommand } from '../../base-command.js';
import { answererName, approvalIdArg } from '../_lib/approvals.js';
import { withGateway } from '../_lib/gateway.js';

export default class ClawApprovalsEdit extends XdogCommand {
  static override summary = 'Run a waiting tool call with other arguments (checked against the tool schema); the model is told';
  static override enableJsonFlag = true;
  static override args = { id: approvalIdArg, args: Args.string({ description: 'the new arguments as one JSON object', required: true }) };
  static override examples = [`<%= config.bin %> claw approvals edit 7 '{"command":"rm -r build/tmp"}'`];

  async run(): Promise<{ approval: ApprovalRecord }> {
    const { args } = await this.parse(ClawApprovalsEdit);
    let parsed: unknown;
    try {
      parsed = JSON.parse(args.args);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new XdogError(ErrorCodes.USAGE, 'the new arguments must be one JSON object', { hint: `for example: xdog claw approvals edit ${args.id} '{"command":"ls"}'` });
    }
    const answer = await withGateway((gateway) => gateway.callService('approvals.edit', { id: args.id, args: parsed, by: answererName() }));
    if (!this.jsonEnabled()) this.log(`approval ${args.id}: runs with the edited arguments`);
    return answer;
  }
}
