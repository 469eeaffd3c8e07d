/**
 * The `eyes` plugin: Eyes, the shared per-user observation daemon, as a
 * capability (docs/eyes.md). Selecting the plugin starts nothing; opening the
 * capability ensures the daemon. The daemon's heavy parts (Chromium driver,
 * SQLite) load only in the daemon process.
 */
import { CapabilityContribution, ContainerModule, ToolContribution, definePlugin } from '../../core/index.js';
import { ClawGroupToken, GatewayServiceContribution } from '../claw-gateway/tokens.js';
import { eyesCapability } from './capability.js';
import { EyesFollowService } from './claw-follow.js';
import { groupEyesTools } from './group-tools.js';

export { eyesCapability } from './capability.js';
export { EyesFollowService, observationInput } from './claw-follow.js';
export { connectEyes, ensureEyes, type EyesClient, type EyesConnectOptions } from './client.js';
export { eyesLocations, type EyesLocations } from './locations.js';
export { createEyesTools, EYES_TOOL_NAMES, type EyesToolOptions } from './tools.js';
export type { EyesStatus, ObservationRecord, WatchRecord } from './protocol.js';

export default definePlugin({
  name: 'eyes',
  provides: { capabilities: ['eyes'], tools: ['eyes_look', 'eyes_read', 'eyes_console', 'eyes_close', 'eyes_watch'] },
  module: new ContainerModule(({ bind }) => {
    bind(CapabilityContribution).toConstantValue(eyesCapability);
    // In a gateway: delivers followed watches' observations to its groups.
    bind(GatewayServiceContribution).toDynamicValue(() => new EyesFollowService());
  }),
  apply(kernel) {
    // A claw group that selects Eyes (claw.groups.<name>.capabilities) gets its tools; nothing else does.
    if (!kernel.isBound(ClawGroupToken)) return;
    for (const tool of groupEyesTools(kernel, kernel.get(ClawGroupToken))) kernel.container.bind(ToolContribution).toConstantValue(tool);
  },
});
