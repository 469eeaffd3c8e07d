import { Args } from '@oclif/core';
import type { DiscoveredPlugin } from '../../core/discovery.js';
import { extensionOfPackage } from '../../core/discovery.js';
import { installPlugin, packageNameOfSpec } from '../../core/plugin-installer.js';
import { userPluginDir } from '../../core/paths.js';
import path from 'node:path';
import { XdogCommand } from '../base-command.js';

export default class PluginsInstall extends XdogCommand {
  static override summary = 'Install a plugin package into the user plugin directory';
  static override description = 'SPEC is anything npm installs: a registry name (xdog-plugin-foo@1.2.0), a tarball or a local folder. The package must have an "xdog" field in its package.json: a plugin, or an extension (docs/extensions.md).';
  static override enableJsonFlag = true;
  static override args = { spec: Args.string({ ignoreStdin: true, description: 'npm spec or path', required: true }) };
  static override examples = ['<%= config.bin %> plugins install xdog-plugin-hello', '<%= config.bin %> plugins install ./docs/examples/xdog-plugin-hello'];

  async run(): Promise<DiscoveredPlugin[]> {
    const { args } = await this.parse(PluginsInstall);
    const plugins = await installPlugin(args.spec);
    if (!this.jsonEnabled()) for (const plugin of plugins) this.log(`installed ${plugin.name} ${plugin.version}`);
    const name = plugins.length === 0 ? packageNameOfSpec(args.spec) : undefined;
    const extension = name ? extensionOfPackage(path.join(userPluginDir(), 'node_modules', name)) : undefined;
    if (extension && !this.jsonEnabled()) this.log(`installed extension ${extension.id} ${extension.version}; enable it by listing it under extensions: in the config`);
    return plugins;
  }
}
