import { gatewayLocations } from '../../../plugins/claw-gateway/locations.js';
import { XdogCommand } from '../../base-command.js';

export default class ClawWebOpen extends XdogCommand {
  static override summary = 'Print a new one-time login link of the running dashboard (xdog claw web)';
  static override description = 'The link works once, for 10 minutes; opening it in a browser logs that browser in with an HttpOnly session cookie.';
  static override enableJsonFlag = true;
  static override examples = ['<%= config.bin %> claw web open', '<%= config.bin %> claw web open --json | jq -r .url'];

  async run(): Promise<{ url: string; exposed: boolean }> {
    await this.parse(ClawWebOpen);
    const { requestLoginLink } = await import('../../../plugins/claw-web/index.js');
    const link = await requestLoginLink(gatewayLocations());
    if (!this.jsonEnabled()) {
      this.log(link.url);
      if (link.exposed) this.logToStderr('xdog: warning: the dashboard listens on a non-loopback address; send this link only over a channel you trust');
    }
    return link;
  }
}
