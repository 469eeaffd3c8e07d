import { Args } from '@oclif/core';
import { XdogCommand } from '../../base-command.js';
import { parsePositive } from '../_lib/args.js';
import { expectFlag, expectedSession, groupFlag, withGateway } from '../_lib/gateway.js';
import { renderNavigation } from '../_lib/render.js';
import type { SessionRecord } from '../../../plugins/sessions/types.js';

export default class ClawSessionsGoto extends XdogCommand {
  static override summary = 'Move the active session back to checkpoint INDEX; the next prompt continues from there';
  static override description = 'INDEX is 1-based (xdog claw sessions show). Later entries stay in the tree and can be reached again with branch ENTRY_ID.';
  static override enableJsonFlag = true;
  static override args = { index: Args.string({ description: 'the checkpoint (1-based)', required: true }) };
  static override flags = { group: groupFlag, expect: expectFlag };
  static override examples = ['<%= config.bin %> claw sessions goto 1'];

  async run(): Promise<SessionRecord> {
    const { args, flags } = await this.parse(ClawSessionsGoto);
    const index = parsePositive('INDEX', args.index);
    const result = await withGateway(async (gateway) => {
      const expectedSessionId = await expectedSession(gateway, flags.group, flags.expect);
      return (await gateway.call('session.goto', { group: flags.group, index, expectedSessionId })) as SessionRecord;
    });
    if (!this.jsonEnabled()) this.log(renderNavigation(`moved to checkpoint ${index}`, result));
    return result;
  }
}
