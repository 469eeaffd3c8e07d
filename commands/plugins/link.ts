import { Args } from '@oclif/core';
import type { DiscoveredPlugin } from '../../core/discovery.js';
import { installPlugin } from '../../core/plugin-installer.js';
import { XdogCommand } from '../base-command.js';

export default class PluginsLink extends XdogCommand {
  static override summary = 'Link a plugin folder you are developing, so every edit is picked up on the next run';
  static override description =
    'Like install, but the user plugin directory points at DIR instead of a copy. DIR must resolve `xdog` itself (npm install --save-dev xdog). Remove it with `xdog plugins uninstall NAME`.';
  static override enableJsonFlag = true;
  static override args = { dir: Args.string({ description: 'the plugin folder', required: true }) };
  static override examples = ['<%= config.bin %> plugins link ./xdog-plugin-foo'];

  async run(): Promise<DiscoveredPlugin[]> {
    const { args } = await this.parse(PluginsLink);
    const plugins = await installPlugin(args.dir, { link: true });
    if (!this.jsonEnabled()) for (const plugin of plugins) this.log(`linked ${plugin.name} ${plugin.version} from ${plugin.dir}`);
    return plugins;
  }
}
