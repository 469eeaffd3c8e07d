import { Flags } from '@oclif/core';
import { connectGateway } from '../../../plugins/claw-gateway/client.js';
import { gatewayLocations } from '../../../plugins/claw-gateway/locations.js';
import { XdogCommand } from '../../base-command.js';

export default class ClawWeb extends XdogCommand {
  static override summary = 'Serve the claw web dashboard (chat, sessions, approvals, schedules, usage) until Ctrl+C';
  static override description = `A browser client of the running gateway (docs/web.md). It listens on 127.0.0.1 unless --host names another address (then it warns: anyone who reaches that address and gets a login link can use your groups).
It prints a one-time login link; \`xdog claw web open\` opens a new one in your browser. A link works once and opens an HttpOnly, SameSite=Strict session cookie.
To have the gateway serve the dashboard itself, started and stopped with it, add a \`claw.web\` section to the config instead (docs/web.md).`;
  static override flags = {
    port: Flags.integer({ description: 'port to listen on (0: any free port)', default: 7447, min: 0, max: 65535 }),
    host: Flags.string({ description: 'address to listen on (default 127.0.0.1; another one is reachable from other machines)', default: '127.0.0.1' }),
  };
  static override examples = ['<%= config.bin %> claw web', '<%= config.bin %> claw web --port 8080', '<%= config.bin %> claw web --host 192.168.1.20'];

  async run(): Promise<void> {
    const { flags } = await this.parse(ClawWeb);
    const { serveDashboard } = await import('../../../plugins/claw-web/dashboard.js');
    const log = (line: string): void => void process.stderr.write(`${new Date().toISOString()} web: ${line}\n`);
    const locations = gatewayLocations();
    const connect = () => connectGateway({ client: 'xdog-web', locations, timeoutMs: 5000 });
    const server = await serveDashboard({ host: flags.host, port: flags.port, locations, connect, log });
    process.stdout.write(`Open the dashboard (this link works once): ${server.loginLink()}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.close();
    log('stopped');
  }
}
