import { Args, Flags } from '@oclif/core';
import type { MemoryWriteResult } from '../../../plugins/memory/index.js';
import { XdogCommand } from '../../base-command.js';
import { readText } from '../_lib/args.js';
import { groupFlag } from '../_lib/gateway.js';
import { callMemory } from '../_lib/memory.js';

export default class ClawMemoryAdd extends XdogCommand {
  static override summary = "Save a memory in a group (its agents find it with memory_search)";
  static override description = 'A memory is at most 4000 characters of text with up to 8 tags. The exact text a group already holds is not saved twice.';
  static override enableJsonFlag = true;
  static override args = { text: Args.string({ description: 'the memory; "-" reads it from stdin', required: true }) };
  static override flags = { group: groupFlag, tag: Flags.string({ char: 't', description: 'a tag to find it by (repeatable)', multiple: true }) };
  static override examples = ['<%= config.bin %> claw memory add "The staging database is db2.internal" --tag db', 'echo "Deploys need two approvals" | <%= config.bin %> claw memory add - --group ops'];

  async run(): Promise<MemoryWriteResult> {
    const { args, flags } = await this.parse(ClawMemoryAdd);
    const text = await readText(args.text);
    const result = await callMemory<MemoryWriteResult>('memory.add', { group: flags.group, text, tags: flags.tag });
    if (!this.jsonEnabled()) {
      const { id, group } = result.entry;
      this.log(result.duplicate ? `group ${group} already has this memory: #${id}` : `saved memory #${id} in group ${group}`);
    }
    return result;
  }
}
