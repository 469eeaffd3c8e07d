import { Flags } from '@oclif/core';
import type { SessionRecord } from '../../../plugins/sessions/types.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag, groupStatus, withGateway } from '../_lib/gateway.js';
import { renderSessions } from '../_lib/render.js';

export default class ClawSessionsList extends XdogCommand {
  static override summary = "List a group's sessions, newest first (* marks the active one)";
  static override enableJsonFlag = true;
  static override flags = {
    group: groupFlag,
    search: Flags.string({ description: 'only sessions whose name or summary contains this text (names match first)' }),
    archived: Flags.boolean({ description: 'include archived sessions' }),
    limit: Flags.integer({ description: 'at most this many', min: 1 }),
  };
  static override examples = ['<%= config.bin %> claw sessions list', '<%= config.bin %> claw sessions list --group main --search deploy --json'];

  async run(): Promise<{ group: string; activeSessionId: string | null; sessions: SessionRecord[] }> {
    const { flags } = await this.parse(ClawSessionsList);
    const result = await withGateway(async (gateway) => {
      const status = await groupStatus(gateway, flags.group);
      const options = { group: status.name, includeArchived: flags.archived || undefined, limit: flags.limit };
      const sessions = (flags.search === undefined
        ? await gateway.call('session.list', options)
        : await gateway.call('session.search', { ...options, query: flags.search })) as SessionRecord[];
      return { group: status.name, activeSessionId: status.activeSessionId, sessions };
    });
    if (!this.jsonEnabled()) this.log(renderSessions(result.sessions, result.activeSessionId, { search: flags.search, archived: flags.archived }));
    return result;
  }
}
