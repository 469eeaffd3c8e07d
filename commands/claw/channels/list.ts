import { XdogCommand } from '../../base-command.js';
import { clean } from '../_lib/render.js';

interface ChannelListing {
  id: string;
  type: string;
  group: string;
  allowFrom: string[];
}

export default class ClawChannelsList extends XdogCommand {
  static override summary = 'List the channels configured under claw.channels (no gateway needed)';
  static override description = 'Shows each channel\'s type, group and allow-list. Settings are not shown: `xdog claw channels status` tells what a running gateway made of them.';
  static override enableJsonFlag = true;
  static override examples = ['<%= config.bin %> claw channels list', '<%= config.bin %> claw channels list --json'];

  async run(): Promise<ChannelListing[]> {
    const { flags } = await this.parse(ClawChannelsList);
    const { config } = this.loadConfig(flags);
    const channels = Object.entries(config.claw?.channels ?? {}).map(([id, channel]) => ({ id, type: channel.type, group: channel.group, allowFrom: channel.allow_from }));
    if (!this.jsonEnabled()) {
      if (channels.length === 0) this.log('no channels are configured (add them under claw.channels; see docs/channels.md)');
      for (const channel of channels) this.log(`${channel.id}  ${clean(channel.type, 64)} → group ${channel.group}  allow: ${channel.allowFrom.map((sender) => clean(sender, 64)).join(', ')}`);
    }
    return channels;
  }
}
