import { Args } from '@oclif/core';
import { XdogCommand } from '../../base-command.js';
import { parsePositive } from '../_lib/args.js';
import { expectFlag, expectedSession, groupFlag, withGateway } from '../_lib/gateway.js';
import { renderNavigation } from '../_lib/render.js';
import type { SessionRecord } from '../../../plugins/sessions/types.js';

export default class ClawSessionsBranch extends XdogCommand {
  static override summary = "Move the active session's leaf to any entry of its tree (ids from xdog claw sessions tree)";
  static override enableJsonFlag = true;
  static override args = { entry: Args.string({ description: 'the entry id', required: true }) };
  static override flags = { group: groupFlag, expect: expectFlag };
  static override examples = ['<%= config.bin %> claw sessions branch 57'];

  async run(): Promise<SessionRecord> {
    const { args, flags } = await this.parse(ClawSessionsBranch);
    const entryId = parsePositive('ENTRY_ID', args.entry);
    const result = await withGateway(async (gateway) => {
      const expectedSessionId = await expectedSession(gateway, flags.group, flags.expect);
      return (await gateway.call('session.branch', { group: flags.group, entryId, expectedSessionId })) as SessionRecord;
    });
    if (!this.jsonEnabled()) this.log(renderNavigation(`moved to entry ${entryId}`, result));
    return result;
  }
}
