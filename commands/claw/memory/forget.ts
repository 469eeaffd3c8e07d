import { Args } from '@oclif/core';
import type { MemoryEntry } from '../../../plugins/memory/index.js';
import { XdogCommand } from '../../base-command.js';
import { parsePositive } from '../_lib/args.js';
import { groupFlag } from '../_lib/gateway.js';
import { callMemory, renderMemories } from '../_lib/memory.js';

interface ForgetResult {
  group: string;
  entry: MemoryEntry;
}

export default class ClawMemoryForget extends XdogCommand {
  static override summary = 'Delete one memory of a group by its id';
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'the memory id (the number after # in list and search)', required: true }) };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw memory forget 12', '<%= config.bin %> claw memory forget 12 --group ops'];

  async run(): Promise<ForgetResult> {
    const { args, flags } = await this.parse(ClawMemoryForget);
    const id = parsePositive('ID', args.id, 'xdog claw memory list shows the ids');
    const result = await callMemory<ForgetResult>('memory.forget', { group: flags.group, id });
    if (!this.jsonEnabled()) this.log(`forgot memory of group ${result.group}: ${renderMemories([result.entry])}`);
    return result;
  }
}
