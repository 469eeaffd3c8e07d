import { Flags } from '@oclif/core';
import { gatewayLocations } from '../../../plugins/claw-gateway/locations.js';
import { XdogCommand } from '../../base-command.js';

export default class ClawWebOpen extends XdogCommand {
  static override summary = 'Open the running dashboard (xdog claw web) in your browser with a new one-time login link';
  static override description = `Asks the running dashboard for a new login link (it works once, for 10 minutes; opening it logs that browser in with an HttpOnly session cookie) and opens it with $BROWSER, else \`open\` (macOS) or \`xdg-open\` (with a display). Without one it prints the link. --print and --json only print it, never starting a browser.`;
  static override enableJsonFlag = true;
  static override flags = {
    print: Flags.boolean({ description: 'print the link, do not start a browser', default: false }),
  };
  static override examples = ['<%= config.bin %> claw web open', '<%= config.bin %> claw web open --print', '<%= config.bin %> claw web open --json | jq -r .url'];

  async run(): Promise<{ url: string; exposed: boolean; opened: string | null }> {
    const { flags } = await this.parse(ClawWebOpen);
    const [{ requestLoginLink }, { openInBrowser }] = await Promise.all([import('../../../plugins/claw-web/login-link.js'), import('../../../plugins/claw-web/browser.js')]);
    const link = await requestLoginLink(gatewayLocations());
    // A link works once: a browser started here would use up the one a --json caller asked for.
    const opened = flags.print || this.jsonEnabled() ? null : await openInBrowser(link.url);
    if (!this.jsonEnabled()) {
      if (opened) this.log(`Opened the dashboard with ${opened} (the link it got works once; run this again for another)`);
      else this.log(link.url);
      if (link.exposed) this.logToStderr('xdog: warning: the dashboard listens on a non-loopback address; send this link only over a channel you trust');
    }
    return { ...link, opened };
  }
}
