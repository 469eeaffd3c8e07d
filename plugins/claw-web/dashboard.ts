/**
 * One running dashboard, however it was started (`xdog claw web`, or the
 * gateway's `claw.web` service): the server bridged to the gateway through
 * its socket like any client, and `web.json` saying where it listens, so
 * `xdog claw web open` and `xdog claw status` find it. Closing removes the
 * state file (only when it is still this process's) and stops the server.
 */
import { readToken } from '../../core/rpc/index.js';
import type { GatewayLocations } from '../claw-gateway/index.js';
import type { Connect } from './bridge.js';
import { startWebServer, type WebServer } from './server.js';
import { removeWebState, writeWebState } from './state-file.js';

/** Where the dashboard listens unless told otherwise. */
export const DEFAULT_WEB_PORT = 7447;

export interface DashboardOptions {
  host: string;
  port: number;
  locations: GatewayLocations;
  /** Opens a client connection to the gateway at `locations` (connectGateway). */
  connect: Connect;
  log(line: string): void;
}

export async function serveDashboard(options: DashboardOptions): Promise<WebServer> {
  const { host, port, locations, connect, log } = options;
  const server = await startWebServer({
    host,
    port,
    connect,
    gatewayToken: () => readToken(locations.token),
  });
  writeWebState(locations, { pid: process.pid, url: server.url, exposed: server.exposed });
  if (server.exposed) log(`warning: listening on ${host}, not loopback: other machines can reach this dashboard; only a login link lets them in, and the connection is not encrypted`);
  log(`ready: ${server.url}`);
  return {
    url: server.url,
    host: server.host,
    port: server.port,
    exposed: server.exposed,
    loginLink: () => server.loginLink(),
    close: async () => {
      removeWebState(locations);
      await server.close();
    },
  };
}
