import { Args } from '@oclif/core';
import { connectEyes } from '../../plugins/eyes/index.js';
import { XdogCommand } from '../base-command.js';

export default class EyesCancel extends XdogCommand {
  static override summary = 'Cancel an Eyes watch (its observations are deleted with it)';
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'the watch id (xdog eyes list)', required: true, ignoreStdin: true }) };
  static override examples = ['<%= config.bin %> eyes cancel w_0123456789ab'];

  async run(): Promise<{ cancelled: string }> {
    const { args } = await this.parse(EyesCancel);
    const client = await connectEyes({ client: 'xdog eyes cancel' });
    try {
      const result = (await client.call('cancel', { id: args.id })) as { cancelled: string };
      if (!this.jsonEnabled()) this.log(`cancelled ${result.cancelled}`);
      return result;
    } finally {
      await client.close();
    }
  }
}
