/**
 * Loads plugins the way a command would, without opening them, and resolves
 * every tool, model provider and capability they bind: what `plugins install`
 * runs before it keeps a package, so a plugin that binds a name it did not
 * declare (or fails to import) is refused instead of breaking every chat later.
 */
import type { DiscoveredPlugin } from './discovery.js';
import { createKernel } from './kernel.js';
import { CapabilityContribution, ModelProviderContribution, ToolContribution } from './tokens.js';

export async function verifyPluginsLoad(plugins: readonly DiscoveredPlugin[], cwd: string): Promise<void> {
  const kernel = await createKernel({ plugins, cwd, config: {} });
  try {
    for (const service of [ToolContribution, ModelProviderContribution, CapabilityContribution]) kernel.getAll<unknown>(service);
  } finally {
    await kernel.close();
  }
}
