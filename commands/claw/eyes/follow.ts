import { Args, Flags } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import { defaultGroupOf } from '../../../core/config.js';
import { connectEyes, type WatchRecord } from '../../../plugins/eyes/index.js';
import { XdogCommand } from '../../base-command.js';

export default class ClawEyesFollow extends XdogCommand {
  static override summary = "Make a claw group follow an Eyes watch: each new observation becomes one system input to the group's active session";
  static override description = `From the next observation on; each is delivered once (never replayed), by the gateway that serves the group.
The watch lives in the Eyes daemon (xdog eyes list); --unfollow stops following.`;
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'the watch id (xdog eyes list)', required: true, ignoreStdin: true }) };
  static override flags = {
    group: Flags.string({ description: 'the group (default: claw.default_group, the only group, or "main")' }),
    unfollow: Flags.boolean({ description: 'stop following instead' }),
  };
  static override examples = ['<%= config.bin %> claw eyes follow w_0123456789ab --group main', '<%= config.bin %> claw eyes follow w_0123456789ab --unfollow'];

  async run(): Promise<{ id: string; group: string; following: boolean }> {
    const { args, flags } = await this.parse(ClawEyesFollow);
    const { config } = await this.loadConfig(flags);
    const group = flags.group ?? defaultGroupOf(config);
    if (!group) throw new XdogError(ErrorCodes.USAGE, 'no group given and no default group', { hint: 'pass --group NAME (a group of claw.groups)' });
    if (!config.claw?.groups?.[group]) throw new XdogError(ErrorCodes.NOT_FOUND, `there is no claw group "${group}" in the config`, { hint: 'name one of claw.groups' });
    const client = await connectEyes({ client: 'xdog claw eyes follow' });
    try {
      if (flags.unfollow) {
        const { unfollowed } = (await client.call('unfollow', { id: args.id, group })) as { unfollowed: boolean };
        if (!this.jsonEnabled()) this.log(unfollowed ? `group ${group} no longer follows ${args.id}` : `group ${group} did not follow ${args.id}`);
        return { id: args.id, group, following: false };
      }
      const watch = (await client.call('follow', { id: args.id, group })) as WatchRecord;
      if (!this.jsonEnabled()) this.log(`group ${group} follows ${watch.id} (${watch.kind} ${watch.subject})`);
      return { id: watch.id, group, following: true };
    } finally {
      await client.close();
    }
  }
}
