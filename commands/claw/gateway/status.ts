import type { GatewayStatus } from '../../../plugins/claw-gateway/protocol.js';
import { XdogCommand } from '../../base-command.js';
import { renderGatewayStatus } from '../_lib/render.js';
import { withGateway } from '../_lib/gateway.js';

export default class ClawGatewayStatus extends XdogCommand {
  static override summary = 'Show whether the claw gateway runs: pid, version, socket, store and groups';
  static override description = 'Exit 1 with a message when no gateway answers on the socket.';
  static override enableJsonFlag = true;
  static override examples = ['<%= config.bin %> claw gateway status', '<%= config.bin %> claw gateway status --json'];

  async run(): Promise<GatewayStatus> {
    await this.parse(ClawGatewayStatus);
    const status = await withGateway(async (gateway) => (await gateway.call('gateway.status', {})) as GatewayStatus);
    if (!this.jsonEnabled()) this.log(renderGatewayStatus(status));
    return status;
  }
}
