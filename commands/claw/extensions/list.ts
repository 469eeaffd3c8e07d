import { XdogCommand } from '../../base-command.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';
import { renderExtensions } from '../_lib/extensions.js';
import type { ExtensionInfo } from '../../../plugins/extensions/index.js';

export default class ClawExtensionsList extends XdogCommand {
  static override summary = "List a group's enabled extensions: state, commands, tools, providers, and why one is quarantined";
  static override enableJsonFlag = true;
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw extensions list', '<%= config.bin %> claw extensions list --group main --json'];

  async run(): Promise<ExtensionInfo[]> {
    const { flags } = await this.parse(ClawExtensionsList);
    const list = await withGateway(async (gateway) => (await gateway.callService('extensions.list', { group: flags.group })) as ExtensionInfo[]);
    if (!this.jsonEnabled()) this.log(renderExtensions(list));
    return list;
  }
}
