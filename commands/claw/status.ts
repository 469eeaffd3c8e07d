import type { GatewayStatus } from '../../plugins/claw-gateway/protocol.js';
import { XdogCommand } from '../base-command.js';
import { withGateway } from './_lib/gateway.js';
import { renderGatewayStatus } from './_lib/render.js';

export default class ClawStatus extends XdogCommand {
  static override summary = 'Show the gateway and its groups: busy or idle, queued inputs, model, active session';
  static override description = 'Exit 1 with a message when no gateway runs (start one with xdog claw gateway start).';
  static override enableJsonFlag = true;
  static override examples = ['<%= config.bin %> claw status', '<%= config.bin %> claw status --json | jq ".groups[].busy"'];

  async run(): Promise<GatewayStatus> {
    await this.parse(ClawStatus);
    const status = await withGateway(async (gateway) => (await gateway.call('gateway.status', {})) as GatewayStatus);
    if (!this.jsonEnabled()) this.log(renderGatewayStatus(status));
    return status;
  }
}
