import { connectEyes, type WatchRecord } from '../../plugins/eyes/index.js';
import { XdogCommand } from '../base-command.js';

export default class EyesList extends XdogCommand {
  static override summary = "List the Eyes daemon's watches";
  static override enableJsonFlag = true;
  static override examples = ['<%= config.bin %> eyes list', '<%= config.bin %> eyes list --json'];

  async run(): Promise<WatchRecord[]> {
    await this.parse(EyesList);
    const client = await connectEyes({ client: 'xdog eyes list' });
    try {
      const watches = (await client.call('list', {})) as WatchRecord[];
      if (!this.jsonEnabled()) {
        if (watches.length === 0) this.log('no watches');
        for (const watch of watches) {
          const last = watch.last_check_at ? new Date(watch.last_check_at).toISOString() : 'never';
          this.log(`${watch.id}  ${watch.kind} ${watch.subject} every ${watch.interval_seconds} s; last check ${last}; ${watch.observations} observation(s)${watch.followers.length ? `; followed by ${watch.followers.join(', ')}` : ''}${watch.last_error ? `; error: ${watch.last_error}` : ''}`);
        }
      }
      return watches;
    } finally {
      await client.close();
    }
  }
}
