/**
 * The claw web dashboard (docs/web.md): a browser client of the gateway
 * protocol, served by `xdog claw web` or, with a `claw.web` section, by the
 * gateway as a service. Selecting the plugin starts nothing; `startWebServer()`
 * (or the service's start) does.
 */
import { ContainerModule, definePlugin } from '../../core/index.js';
import { GatewayServiceContribution } from '../claw-gateway/tokens.js';
import { createWebService } from './service.js';

export { startWebServer, CONTENT_SECURITY_POLICY, type WebServer, type WebServerOptions } from './server.js';
export { readWebState, removeWebState, runningWebState, webStateFile, writeWebState, type WebState } from './state-file.js';
export { requestLoginLink } from './login-link.js';
export { browserCommands, openInBrowser, type BrowserCommand } from './browser.js';
export { DEFAULT_WEB_PORT, serveDashboard, type DashboardOptions } from './dashboard.js';
export { createWebService } from './service.js';

export default definePlugin({
  name: 'claw-web',
  provides: {},
  module: new ContainerModule(({ bind }) => {
    bind(GatewayServiceContribution).toConstantValue(createWebService());
  }),
});
