import { Flags } from '@oclif/core';
import fs from 'node:fs';
import { discoverExtensions, discoverPlugins, entryExists, type DiscoveredPlugin } from '../../core/discovery.js';
import { PROVIDE_KINDS } from '../../core/plugin.js';
import { XdogCommand } from '../base-command.js';

export interface PluginListing {
  name: string;
  /** A plugin runs in the xdog process; an extension in its own worker, once enabled under `extensions:`. */
  kind: 'plugin' | 'extension';
  version: string;
  package: string;
  source: DiscoveredPlugin['source'];
  provides: DiscoveredPlugin['provides'];
  /** `ready` when the entry module exists; discovery never imports it. */
  state: 'ready' | 'missing-entry';
  dir: string;
}

const NOTHING_PROVIDED: DiscoveredPlugin['provides'] = { tools: [], skills: [], providers: [], capabilities: [], commands: [], channels: [] };

export default class PluginsList extends XdogCommand {
  static override summary = 'List installed plugins and extensions (builtin, project and user) without loading them';
  static override enableJsonFlag = true;
  static override flags = {
    cwd: Flags.string({ description: 'project directory to search node_modules from', default: '.' }),
  };
  static override examples = ['<%= config.bin %> plugins list', '<%= config.bin %> plugins list --json'];

  async run(): Promise<PluginListing[]> {
    const { flags } = await this.parse(PluginsList);
    const plugins: PluginListing[] = discoverPlugins({ cwd: flags.cwd }).map((plugin) => ({
      name: plugin.name,
      kind: 'plugin',
      version: plugin.version,
      package: plugin.packageName,
      source: plugin.source,
      provides: plugin.provides,
      state: entryExists(plugin) ? 'ready' : 'missing-entry',
      dir: plugin.dir,
    }));
    const extensions: PluginListing[] = discoverExtensions({ cwd: flags.cwd }).map((extension) => ({
      name: extension.id,
      kind: 'extension',
      version: extension.version,
      package: extension.id,
      source: extension.source,
      provides: NOTHING_PROVIDED,
      state: fs.existsSync(extension.entry) ? 'ready' : 'missing-entry',
      dir: extension.dir,
    }));
    const listings = [...plugins, ...extensions];
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
      const detail = item.kind === 'extension' ? 'extension' : provides;
      this.log(`${item.name}  ${item.version}  ${item.source}  ${item.state}${detail ? `  ${detail}` : ''}`);
    }
  }
}
