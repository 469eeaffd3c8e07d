import { Args } from '@oclif/core';
import { uninstallPlugin } from '../../core/plugin-installer.js';
import { XdogCommand } from '../base-command.js';

export default class PluginsUninstall extends XdogCommand {
  static override summary = 'Remove a package from the user plugin directory';
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ ignoreStdin: true, description: 'package name', required: true }) };
  static override examples = ['<%= config.bin %> plugins uninstall xdog-plugin-hello'];

  async run(): Promise<{ removed: string }> {
    const { args } = await this.parse(PluginsUninstall);
    await uninstallPlugin(args.name);
    if (!this.jsonEnabled()) this.log(`removed ${args.name}`);
    return { removed: args.name };
  }
}
