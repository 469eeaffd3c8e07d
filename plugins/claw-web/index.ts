/**
 * The claw web dashboard (docs/web.md): a browser client of the gateway
 * protocol, served by `xdog claw web`. Selecting the plugin starts nothing;
 * `startWebServer()` does.
 */
import { definePlugin } from '../../core/index.js';

export { startWebServer, CONTENT_SECURITY_POLICY, type WebServer, type WebServerOptions } from './server.js';
export { readWebState, removeWebState, runningWebState, webStateFile, writeWebState, type WebState } from './state-file.js';
export { requestLoginLink } from './login-link.js';

export default definePlugin({
  name: 'claw-web',
  provides: {},
});
