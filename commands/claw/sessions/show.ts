import { Args } from '@oclif/core';
import { XdogCommand } from '../../base-command.js';
import { groupFlag, groupStatus, withGateway } from '../_lib/gateway.js';
import { renderSessionShow } from '../_lib/render.js';
import type { SessionShow } from '../_lib/results.js';

export default class ClawSessionsShow extends XdogCommand {
  static override summary = 'Show a session (default: the active one): name, model, and its numbered checkpoints';
  static override description = 'Checkpoints are the messages on the current path, numbered from 1; fork INDEX and goto INDEX take these numbers. A checkpoint marked not valid would split a tool call from its result.';
  static override enableJsonFlag = true;
  static override args = { session: Args.string({ description: 'a session id (default: the active session)' }) };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw sessions show', '<%= config.bin %> claw sessions show 0b6f3c1e-5d1a-4c59-9d59-0c7b1a2e4f10 --json'];

  async run(): Promise<SessionShow & { activeSessionId: string | null }> {
    const { args, flags } = await this.parse(ClawSessionsShow);
    const result = await withGateway(async (gateway) => {
      const status = await groupStatus(gateway, flags.group);
      const show = (await gateway.call('session.show', { group: status.name, sessionId: args.session })) as SessionShow;
      return { ...show, activeSessionId: status.activeSessionId };
    });
    if (!this.jsonEnabled()) this.log(renderSessionShow(result, result.activeSessionId));
    return result;
  }
}
