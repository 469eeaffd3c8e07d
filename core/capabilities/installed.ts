/**
 * Opening every installed capability for a host (what `xdog agent chat` does
 * unless --no-tools): one set over the kernel's plugins, all of its
 * capabilities selected.
 */
import type { Kernel } from '../kernel.js';
import type { ToolRepo } from '../agent/tool-repo.js';
import type { SkillRepo } from '../skills/skill-repo.js';
import type { CapabilityAssembly } from './assembly.js';
import { CapabilitySet } from './capability-set.js';
import type { CapabilityHost } from './types.js';

/** Opens all capabilities the kernel's plugins provide, for `host` (default: the application port). */
export async function openInstalledCapabilities(
  kernel: Kernel,
  host?: CapabilityHost,
  repos: { toolRepo?: ToolRepo; skillRepo?: SkillRepo } = {},
): Promise<CapabilityAssembly> {
  const set = CapabilitySet.fromKernel(kernel, host?.scope ?? 'application', { ...repos, cwd: host?.cwd });
  return set.select(set.available().map((info) => info.name)).open(host);
}
