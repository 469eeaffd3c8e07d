import { Args } from '@oclif/core';
import { XdogCommand } from '../../base-command.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';
import { renderExtensions } from '../_lib/extensions.js';
import type { ExtensionInfo } from '../../../plugins/extensions/index.js';

export default class ClawExtensionsReload extends XdogCommand {
  static override summary = "Stop an extension's worker and start it afresh (the group must be idle); a quarantined extension works again";
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ ignoreStdin: true, description: 'the extension id (its package name)', required: true }) };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw extensions reload xdog-extension-guard'];

  async run(): Promise<ExtensionInfo> {
    const { args, flags } = await this.parse(ClawExtensionsReload);
    const info = await withGateway(async (gateway) => (await gateway.callService('extensions.reload', { group: flags.group, id: args.id })) as ExtensionInfo);
    if (!this.jsonEnabled()) this.log(renderExtensions([info]));
    return info;
  }
}
