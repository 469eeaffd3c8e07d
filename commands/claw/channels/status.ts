import { Args } from '@oclif/core';
import type { ChannelStatus } from '../../../plugins/channels/index.js';
import { XdogCommand } from '../../base-command.js';
import { withGateway } from '../_lib/gateway.js';
import { clean } from '../_lib/render.js';

export default class ClawChannelsStatus extends XdogCommand {
  static override summary = 'Show the running channels: inbox, the message being answered, counters, connection';
  static override description = 'Asks the running gateway (exit 1 with a message when none runs).';
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'one channel id (default: every channel)' }) };
  static override examples = ['<%= config.bin %> claw channels status', '<%= config.bin %> claw channels status team-irc --json'];

  async run(): Promise<ChannelStatus[]> {
    const { args } = await this.parse(ClawChannelsStatus);
    const channels = await withGateway(async (gateway) => (await gateway.callService('channels.status', args.id === undefined ? {} : { id: args.id })) as ChannelStatus[]);
    if (!this.jsonEnabled()) {
      if (channels.length === 0) this.log('no channels are running');
      for (const channel of channels) {
        const { counters, inbox } = channel;
        const current = channel.current ? `answering ${clean(channel.current.sender, 64)}` : 'idle';
        const transport = Object.entries(channel.transport).map(([key, value]) => `${key}=${clean(String(value), 200)}`).join(' ');
        this.log(`${channel.id} (${channel.type} → group ${channel.group}): ${channel.running ? 'running' : 'stopped'}, ${current}, inbox ${inbox.size}/${inbox.capacity} (most ${inbox.highWater})`);
        this.log(`  accepted ${counters.accepted}, refused ${counters.refused}, full ${counters.full}, duplicate ${counters.duplicate}, answered ${counters.answered}, sent ${counters.sent}, failed ${counters.failed}, dropped ${counters.dropped}`);
        if (transport) this.log(`  ${transport}`);
      }
    }
    return channels;
  }
}
