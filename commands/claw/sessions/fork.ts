import { Args } from '@oclif/core';
import { XdogCommand } from '../../base-command.js';
import { parsePositive } from '../_lib/args.js';
import { expectFlag, expectedSession, groupFlag, withGateway } from '../_lib/gateway.js';
import { renderNavigation } from '../_lib/render.js';
import type { SessionRecord } from '../../../plugins/sessions/types.js';

export default class ClawSessionsFork extends XdogCommand {
  static override summary = 'Copy the active session up to checkpoint INDEX into a new session and make it active';
  static override description = 'INDEX is 1-based, as xdog claw sessions show numbers the checkpoints; one that would split a tool call from its result is refused. The original session is kept unchanged.';
  static override enableJsonFlag = true;
  static override args = { index: Args.string({ description: 'the checkpoint (1-based)', required: true }) };
  static override flags = { group: groupFlag, expect: expectFlag };
  static override examples = ['<%= config.bin %> claw sessions fork 2'];

  async run(): Promise<SessionRecord> {
    const { args, flags } = await this.parse(ClawSessionsFork);
    const index = parsePositive('INDEX', args.index);
    const result = await withGateway(async (gateway) => {
      const expectedSessionId = await expectedSession(gateway, flags.group, flags.expect);
      return (await gateway.call('session.fork', { group: flags.group, index, expectedSessionId })) as SessionRecord;
    });
    if (!this.jsonEnabled()) this.log(renderNavigation(`forked at checkpoint ${index}`, result));
    return result;
  }
}
