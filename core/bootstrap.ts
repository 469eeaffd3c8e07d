/**
 * Builds a kernel the way the CLI does: load the config file, discover the
 * installed plugins, select them, import and open them.
 */
import { loadConfig, type XdogConfig } from './config.js';
import { discoverPlugins, type DiscoveredPlugin, type DiscoveryOptions } from './discovery.js';
import { ErrorCodes, XdogError } from './errors.js';
import { createKernel, type Kernel } from './kernel.js';
import type { ContainerModule } from 'inversify';

export interface BootOptions extends DiscoveryOptions {
  /** Config file path (else XDOG_CONFIG, else the default). Ignored when `config` is given. */
  configFile?: string;
  config?: XdogConfig;
  /** Plugin names to select; default: every discovered plugin. */
  select?: readonly string[];
  /** Keep only plugins for which this returns true (after `select`). */
  filter?: (plugin: DiscoveredPlugin) => boolean;
  overrides?: readonly ContainerModule[];
}

/** Discovers, selects, loads and opens plugins; returns an open kernel. */
export async function bootKernel(options: BootOptions = {}): Promise<Kernel> {
  const config = options.config ?? loadConfig(options.configFile).config;
  const discovered = discoverPlugins(options);
  let selected = discovered;
  if (options.select) {
    const byName = new Map(discovered.map((plugin) => [plugin.name, plugin]));
    selected = options.select.map((name) => {
      const plugin = byName.get(name);
      if (!plugin) {
        throw new XdogError(ErrorCodes.NOT_FOUND, `no installed plugin named "${name}"`, {
          hint: `installed: ${[...byName.keys()].join(', ') || 'none'}; see xdog plugins list`,
        });
      }
      return plugin;
    });
  }
  if (options.filter) selected = selected.filter(options.filter);
  const kernel = await createKernel({ plugins: selected, config, overrides: options.overrides, cwd: options.cwd });
  await kernel.open();
  return kernel;
}
