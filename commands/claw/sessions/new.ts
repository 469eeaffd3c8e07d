import { Flags } from '@oclif/core';
import { XdogCommand } from '../../base-command.js';
import { expectFlag, expectedSession, groupFlag, withGateway } from '../_lib/gateway.js';
import { renderNavigation } from '../_lib/render.js';
import type { SessionRecord } from '../../../plugins/sessions/types.js';

export default class ClawSessionsNew extends XdogCommand {
  static override summary = 'Start a new, empty session and make it the active one (the group must be idle)';
  static override enableJsonFlag = true;
  static override flags = { group: groupFlag, expect: expectFlag, name: Flags.string({ description: 'a name for the new session' }) };
  static override examples = ['<%= config.bin %> claw sessions new', '<%= config.bin %> claw sessions new --name "release notes"'];

  async run(): Promise<SessionRecord> {
    const { flags } = await this.parse(ClawSessionsNew);
    const result = await withGateway(async (gateway) => {
      const expectedSessionId = await expectedSession(gateway, flags.group, flags.expect);
      return (await gateway.call('session.new', { group: flags.group, expectedSessionId, name: flags.name })) as SessionRecord;
    });
    if (!this.jsonEnabled()) this.log(renderNavigation('new session', result));
    return result;
  }
}
