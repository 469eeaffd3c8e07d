import { Flags } from '@oclif/core';
import { discoverPlugins, entryExists, type DiscoveredPlugin } from '../../core/discovery.js';
import { PROVIDE_KINDS } from '../../core/plugin.js';
import { XdogCommand } from '../base-command.js';

export interface PluginListing {
  name: string;
  version: string;
  package: string;
  source: DiscoveredPlugin['source'];
  provides: DiscoveredPlugin['provides'];
  /** `ready` when the entry module exists; discovery never imports it. */
  state: 'ready' | 'missing-entry';
  dir: string;
}

export default class PluginsList extends XdogCommand {
  static override summary = 'List installed plugins (builtin, project and user) without loading them';
  static override enableJsonFlag = true;
  static override flags = {
    cwd: Flags.string({ description: 'project directory to search node_modules from', default: '.' }),
  };
  static override examples = ['<%= config.bin %> plugins list', '<%= config.bin %> plugins list --json'];

  async run(): Promise<PluginListing[]> {
    const { flags } = await this.parse(PluginsList);
    const listings = discoverPlugins({ cwd: flags.cwd }).map((plugin) => ({
      name: plugin.name,
      version: plugin.version,
      package: plugin.packageName,
      source: plugin.source,
      provides: plugin.provides,
      state: entryExists(plugin) ? ('ready' as const) : ('missing-entry' as const),
      dir: plugin.dir,
    }));
    if (!this.jsonEnabled()) this.render(listings);
    return listings;
  }

  private render(listings: PluginListing[]): void {
    if (listings.length === 0) {
      this.log('no plugins found');
      return;
    }
    for (const item of listings) {
      const provides = PROVIDE_KINDS.filter((kind) => item.provides[kind].length)
        .map((kind) => `${kind}: ${item.provides[kind].join(', ')}`)
        .join('; ');
      this.log(`${item.name}  ${item.version}  ${item.source}  ${item.state}${provides ? `  ${provides}` : ''}`);
    }
  }
}
