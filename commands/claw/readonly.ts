import { Args, Flags } from '@oclif/core';
import type { ReadOnlyStatus } from '../../plugins/access/index.js';
import { XdogCommand } from '../base-command.js';
import { groupFlag, withGateway } from './_lib/gateway.js';

export default class ClawReadonly extends XdogCommand {
  static override summary = "Show, or turn on or off, a group's read-only scope";
  static override description =
    'While it is on, the group\'s agents may only use read, ls, grep, find, current_time and MCP tools listed in read_only_tools; every other tool call is denied. ' +
    'Only this command changes it (never a model, skill or extension). A change needs an idle group and is saved before it takes effect.';
  static override enableJsonFlag = true;
  static override args = { action: Args.string({ description: 'on, off or status', options: ['on', 'off', 'status'], default: 'status' }) };
  static override flags = {
    group: groupFlag,
    expect: Flags.integer({ description: 'the scope revision you expect (refused if it changed since)', min: 0 }),
  };
  static override examples = ['<%= config.bin %> claw readonly on', '<%= config.bin %> claw readonly status --json', '<%= config.bin %> claw readonly off'];

  async run(): Promise<ReadOnlyStatus> {
    const { args, flags } = await this.parse(ClawReadonly);
    const status = await withGateway(async (gateway): Promise<ReadOnlyStatus> => {
      if (args.action === 'status') return gateway.callService('readonly.status', { group: flags.group });
      return gateway.callService('readonly.set', { group: flags.group, readOnly: args.action === 'on', ...(flags.expect === undefined ? {} : { expectedRevision: flags.expect }) });
    });
    if (!this.jsonEnabled()) this.log(renderReadOnly(status));
    return status;
  }
}

function renderReadOnly(status: ReadOnlyStatus): string {
  if (status.mode === 'corrupt') return `group ${status.group}: the read-only scope is corrupt, so every tool call is denied (${status.problem})`;
  return `group ${status.group}: read-only ${status.readOnly ? 'on' : 'off'} (revision ${status.revision})`;
}
