import { connectEyes, type EyesStatus } from '../../plugins/eyes/index.js';
import { XdogCommand } from '../base-command.js';

export default class EyesStatusCommand extends XdogCommand {
  static override summary = 'Show whether the Eyes daemon runs: pid, Chromium, targets and watches';
  static override description = 'Exit 1 with a message when no Eyes daemon runs (it starts when an agent that selects Eyes opens).';
  static override enableJsonFlag = true;
  static override examples = ['<%= config.bin %> eyes status', '<%= config.bin %> eyes status --json'];

  async run(): Promise<EyesStatus> {
    await this.parse(EyesStatusCommand);
    const client = await connectEyes({ client: 'xdog eyes status' });
    try {
      const status = await client.status();
      if (!this.jsonEnabled()) {
        this.log(`Eyes daemon: pid ${status.pid}, version ${status.version}, up since ${new Date(status.started_at).toISOString()}`);
        this.log(`socket: ${status.socket}\nstore: ${status.store}`);
        this.log(`allowed hosts: loopback${status.allow_hosts.length ? `, ${status.allow_hosts.join(', ')}` : ''}`);
        this.log(`Chromium: ${status.browser.running ? `running (pid ${status.browser.pid ?? '?'})` : 'not started'}`);
        for (const target of status.targets) this.log(`target ${target.name}: ${target.status}${target.status === 'open' ? ` ${target.url}` : ` (${target.problem ?? ''})`}`);
        this.log(`watches: ${status.watches}`);
      }
      return status;
    } finally {
      await client.close();
    }
  }
}
