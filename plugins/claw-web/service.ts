/**
 * The `claw.web` gateway service: with a `claw.web` section the gateway
 * serves the dashboard itself, started with it and stopped before its groups
 * close. It is still only a client of the gateway: its bridge connects to
 * the gateway's own socket with the token, as `xdog claw web` does, so every
 * check the protocol makes holds. Without the section it starts nothing.
 */
import type { GatewayHost, GatewayService } from '../claw-gateway/tokens.js';
import type { WebServer } from './server.js';

export function createWebService(): GatewayService {
  let server: WebServer | undefined;
  return {
    name: 'claw-web',
    async start(host: GatewayHost) {
      const web = host.kernel.config.claw?.web;
      if (!web) return;
      // Loaded here: a gateway without the section never loads the server.
      const [{ serveDashboard, DEFAULT_WEB_PORT }, { connectGateway }] = await Promise.all([import('./dashboard.js'), import('../claw-gateway/index.js')]);
      const { locations } = host;
      server = await serveDashboard({
        host: web.host ?? '127.0.0.1',
        port: web.port ?? DEFAULT_WEB_PORT,
        locations,
        connect: () => connectGateway({ client: 'xdog-web', locations, timeoutMs: 5000 }),
        log: (line) => host.log(`web: ${line}`),
      });
      host.log('web: log in with a one-time link from `xdog claw web open`');
    },
    async stop() {
      const running = server;
      server = undefined;
      await running?.close();
    },
  };
}
