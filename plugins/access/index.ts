/**
 * The `access` plugin: the host-owned read-only scope. In claw it adds the
 * `readonly.status` / `readonly.set` gateway methods and gates every agent
 * of a group on the scope stored for that group. A host that builds agents
 * itself taps the same gate with its own `AccessScope` (tapReadOnlyGate).
 * Hooks are policy, not an OS sandbox (docs/access.md).
 */
import { ContainerModule, definePlugin, type Kernel } from '../../core/index.js';
import { ClawGroupToken, GatewayServiceContribution } from '../claw-gateway/tokens.js';
import { McpRegistryToken } from '../mcp/index.js';
import { tapReadOnlyGate } from './read-only-gate.js';
import type { AccessScope } from './scope.js';
import { createAccessService } from './service.js';

export { MemoryAccessScope, type AccessMode, type AccessScope } from './scope.js';
export { READ_ONLY_TOOLS, readOnlyBlockReason, tapReadOnlyGate, type ReadOnlyMcpPolicy } from './read-only-gate.js';
export { ReadOnlyNotifications, createAccessService, type ReadOnlyStatus } from './service.js';

/** The scope of the claw group a kernel serves: the store row, read on every call. */
function groupScope(kernel: Kernel): AccessScope | undefined {
  if (!kernel.isBound(ClawGroupToken)) return undefined;
  const group = kernel.get(ClawGroupToken);
  return { mode: async () => (await group.store.getAccessScope(group.name)).mode };
}

export default definePlugin({
  name: 'access',
  module: new ContainerModule(({ bind }) => {
    bind(GatewayServiceContribution).toConstantValue(createAccessService());
  }),
  apply(kernel: Kernel) {
    const scope = groupScope(kernel);
    if (!scope) return;
    const mcp = () => (kernel.isBound(McpRegistryToken) ? kernel.get(McpRegistryToken) : undefined);
    kernel.hooks.agentCreated.tap('access', (agent) => void tapReadOnlyGate(agent.hooks, scope, mcp));
  },
});
