import { Flags } from '@oclif/core';
import { connectGateway } from '../../../plugins/claw-gateway/client.js';
import { gatewayLocations } from '../../../plugins/claw-gateway/locations.js';
import { readToken } from '../../../core/rpc/index.js';
import { XdogCommand } from '../../base-command.js';

export default class ClawWeb extends XdogCommand {
  static override summary = 'Serve the claw web dashboard (chat, sessions, approvals, schedules, usage) until Ctrl+C';
  static override description = `A browser client of the running gateway (docs/web.md). It listens on 127.0.0.1 unless --host names another address (then it warns: anyone who reaches that address and gets a login link can use your groups).
It prints a one-time login link; \`xdog claw web open\` prints a new one. A link works once and opens an HttpOnly, SameSite=Strict session cookie.`;
  static override flags = {
    port: Flags.integer({ description: 'port to listen on (0: any free port)', default: 7447, min: 0, max: 65535 }),
    host: Flags.string({ description: 'address to listen on (default 127.0.0.1; another one is reachable from other machines)', default: '127.0.0.1' }),
  };
  static override examples = ['<%= config.bin %> claw web', '<%= config.bin %> claw web --port 8080', '<%= config.bin %> claw web --host 192.168.1.20'];

  async run(): Promise<void> {
    const { flags } = await this.parse(ClawWeb);
    const { startWebServer, writeWebState, removeWebState } = await import('../../../plugins/claw-web/index.js');
    const locations = gatewayLocations();
    const log = (line: string): void => void process.stderr.write(`${new Date().toISOString()} web: ${line}\n`);
    const server = await startWebServer({
      host: flags.host,
      port: flags.port,
      connect: () => connectGateway({ client: 'xdog-web', locations, timeoutMs: 5000 }),
      gatewayToken: () => readToken(locations.token),
    });
    writeWebState(locations, { pid: process.pid, url: server.url, exposed: server.exposed });
    if (server.exposed) log(`warning: listening on ${flags.host}, not loopback: other machines can reach this dashboard; only a login link lets them in, and the connection is not encrypted`);
    log(`ready: ${server.url}`);
    process.stdout.write(`Open the dashboard (this link works once): ${server.loginLink()}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    removeWebState(locations);
    await server.close();
    log('stopped');
  }
}
