/**
 * The `eyes` plugin: Eyes, the shared per-user observation daemon, as a
 * capability (docs/eyes.md). Selecting the plugin starts nothing; opening the
 * capability ensures the daemon. The daemon's heavy parts (Chromium driver,
 * SQLite) load only in the daemon process.
 */
import { CapabilityContribution, ContainerModule, definePlugin } from '../../core/index.js';
import { eyesCapability } from './capability.js';

export { eyesCapability } from './capability.js';
export { connectEyes, ensureEyes, type EyesClient, type EyesConnectOptions } from './client.js';
export { eyesLocations, type EyesLocations } from './locations.js';
export { createEyesTools, EYES_TOOL_NAMES, type EyesToolOptions } from './tools.js';
export type { EyesStatus, ObservationRecord, WatchRecord } from './protocol.js';

export default definePlugin({
  name: 'eyes',
  provides: { capabilities: ['eyes'], tools: ['eyes_look', 'eyes_read', 'eyes_console', 'eyes_close', 'eyes_watch'] },
  module: new ContainerModule(({ bind }) => {
    bind(CapabilityContribution).toConstantValue(eyesCapability);
  }),
});
