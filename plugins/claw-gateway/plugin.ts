/**
 * The gateway plugin's definition, the entry the kernel imports (package.json
 * `xdog.plugins`): selecting the plugin loads this file alone, not the gateway
 * (`index.ts` re-exports it as its default).
 */
import { definePlugin } from '../../core/index.js';

export default definePlugin({
  name: 'claw-gateway',
  provides: {},
});
