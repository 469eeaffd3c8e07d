import { Args } from '@oclif/core';
import { XdogCommand } from '../../base-command.js';
import { expectFlag, expectedSession, groupFlag, withGateway } from '../_lib/gateway.js';
import { renderNavigation } from '../_lib/render.js';
import type { SessionRecord } from '../../../plugins/sessions/types.js';

export default class ClawSessionsResume extends XdogCommand {
  static override summary = 'Make an existing session of the group the active one (the group must be idle)';
  static override enableJsonFlag = true;
  static override args = { session: Args.string({ description: 'the session id (xdog claw sessions list)', required: true }) };
  static override flags = { group: groupFlag, expect: expectFlag };
  static override examples = ['<%= config.bin %> claw sessions resume 0b6f3c1e-5d1a-4c59-9d59-0c7b1a2e4f10'];

  async run(): Promise<SessionRecord> {
    const { args, flags } = await this.parse(ClawSessionsResume);
    const result = await withGateway(async (gateway) => {
      const expectedSessionId = await expectedSession(gateway, flags.group, flags.expect);
      return (await gateway.call('session.resume', { group: flags.group, sessionId: args.session, expectedSessionId })) as SessionRecord;
    });
    if (!this.jsonEnabled()) this.log(renderNavigation('resumed', result));
    return result;
  }
}
