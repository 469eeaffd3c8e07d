/**
 * What a Flow run takes from a kernel: the tools its steps may use (the
 * installed tool contributions) and the configured model.
 */
import { ToolContribution, modelRegistryFor, type AgentTool, type CapabilityRuntime, type Kernel } from '../../core/index.js';

/** The installed tools (one fresh set per kernel). */
export function flowToolsOf(kernel: Kernel): AgentTool[] {
  return kernel.getAll(ToolContribution);
}

/** The model for agent steps: `model`, else the config's `model:`; resolved now so a bad name fails before any step runs. */
export function flowRuntimeOf(kernel: Kernel, model: string | undefined): CapabilityRuntime | undefined {
  const chosen = model ?? kernel.config.model;
  if (!chosen) return undefined;
  const registry = modelRegistryFor(kernel);
  return { streamFn: registry.streamFn, model: registry.resolve(chosen).qualified };
}
