/**
 * Opening every installed capability for a host (what `xdog agent chat` does
 * unless --no-tools): one set over the kernel's plugins, all of its
 * capabilities selected.
 */
import type { Kernel } from '../kernel.js';
import type { ToolRepo } from '../agent/tool-repo.js';
import type { SkillRepo } from '../skills/skill-repo.js';
import type { CapabilityAssembly } from './assembly.js';
import { CapabilityContribution } from '../tokens.js';
import { CapabilitySet } from './capability-set.js';
import type { CapabilityHost } from './types.js';

/**
 * Opens capabilities the kernel's plugins provide, for `host` (default: the
 * application port): the ones `names` lists (the config's `capabilities:`;
 * an unknown name fails), else every installed one that is not `explicit`
 * (a capability that starts a daemon opens only when named).
 */
export async function openInstalledCapabilities(
  kernel: Kernel,
  host?: CapabilityHost,
  repos: { toolRepo?: ToolRepo; skillRepo?: SkillRepo } = {},
  names?: readonly string[],
): Promise<CapabilityAssembly> {
  const set = CapabilitySet.fromKernel(kernel, host?.scope ?? 'application', { ...repos, cwd: host?.cwd });
  const explicit = new Set(kernel.getAll(CapabilityContribution).filter((provider) => provider.explicit).map((provider) => provider.name));
  return set.select(names ?? set.available().map((info) => info.name).filter((name) => !explicit.has(name))).open(host);
}
