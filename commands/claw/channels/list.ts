import { ErrorCodes, XdogError } from '../../../core/errors.js';
import { discoverPlugins } from '../../../core/discovery.js';
import { XdogCommand } from '../../base-command.js';
import { clean } from '../_lib/render.js';

interface ChannelListing {
  id: string;
  type: string;
  group: string;
  allowFrom: string[];
  /** The installed package that provides the type (from package.json files: nothing is imported), or null when none does. */
  providedBy: string | null;
}

export default class ClawChannelsList extends XdogCommand {
  static override summary = 'List the channels configured under claw.channels (no gateway needed)';
  static override description =
    'Shows each channel\'s type, the installed package that provides the type, its group and allow-list, and fails when a channel\'s type is provided by no installed plugin. Settings are not shown: `xdog claw channels status` tells what a running gateway made of them.';
  static override enableJsonFlag = true;
  static override examples = ['<%= config.bin %> claw channels list', '<%= config.bin %> claw channels list --json'];

  async run(): Promise<ChannelListing[]> {
    const { flags } = await this.parse(ClawChannelsList);
    const { config } = await this.loadConfig(flags);
    const providers = new Map(discoverPlugins().flatMap((plugin) => plugin.provides.channels.map((type) => [type, plugin.packageName] as const)));
    const channels = Object.entries(config.claw?.channels ?? {}).map(([id, channel]) => ({
      id,
      type: channel.type,
      group: channel.group,
      allowFrom: channel.allow_from,
      providedBy: providers.get(channel.type) ?? null,
    }));
    if (!this.jsonEnabled()) {
      if (channels.length === 0) this.log('no channels are configured (add them under claw.channels; see docs/channels.md)');
      for (const channel of channels) {
        const type = `${clean(channel.type, 64)} (${channel.providedBy ?? 'no installed plugin provides this type'})`;
        this.log(`${channel.id}  ${type} → group ${channel.group}  allow: ${channel.allowFrom.map((sender) => clean(sender, 64)).join(', ')}`);
      }
    }
    const orphans = channels.filter((channel) => channel.providedBy === null);
    if (orphans.length > 0) {
      throw new XdogError(ErrorCodes.CONFIG_INVALID, `no installed plugin provides the type of ${orphans.map((channel) => `claw.channels.${channel.id} ("${clean(channel.type, 64)}")`).join(', ')}`, {
        hint: `install the plugin that provides it (xdog plugins install PACKAGE) or fix the type; installed types: ${[...providers.keys()].sort().join(', ') || 'none'}`,
      });
    }
    return channels;
  }
}
