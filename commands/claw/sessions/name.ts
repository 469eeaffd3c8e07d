import { Args, Flags } from '@oclif/core';
import type { SessionRecord } from '../../../plugins/sessions/types.js';
import { XdogCommand } from '../../base-command.js';
import { expectFlag, expectedSession, groupFlag, withGateway } from '../_lib/gateway.js';
import { clean } from '../_lib/render.js';
import type { SessionShow } from '../_lib/results.js';

export default class ClawSessionsName extends XdogCommand {
  static override summary = 'Show, set or clear (-) the name of the active session (or of --session)';
  static override description = 'Names are at most 256 bytes of UTF-8, without control or bidi characters. Setting one needs an idle group.';
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'the new name; "-" clears it; none prints it' }) };
  static override flags = { group: groupFlag, expect: expectFlag, session: Flags.string({ description: 'another session of the group' }) };
  static override examples = ['<%= config.bin %> claw sessions name', '<%= config.bin %> claw sessions name "release notes"', '<%= config.bin %> claw sessions name -'];

  async run(): Promise<SessionRecord> {
    const { args, flags } = await this.parse(ClawSessionsName);
    const session = await withGateway(async (gateway) => {
      if (args.name === undefined) return ((await gateway.call('session.show', { group: flags.group, sessionId: flags.session })) as SessionShow).session;
      const expectedSessionId = await expectedSession(gateway, flags.group, flags.expect);
      const name = args.name === '-' ? null : args.name;
      return (await gateway.call('session.name', { group: flags.group, sessionId: flags.session, name, expectedSessionId })) as SessionRecord;
    });
    if (!this.jsonEnabled()) this.log(session.name === null ? `session ${session.id} has no name` : clean(session.name, 256));
    return session;
  }
}
