import { Flags } from '@oclif/core';
import type { MemoryPage } from '../../../plugins/memory/index.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag } from '../_lib/gateway.js';
import { callMemory, renderMemories } from '../_lib/memory.js';

type ListResult = MemoryPage & { group: string };

export default class ClawMemoryList extends XdogCommand {
  static override summary = "List a group's memories, newest first";
  static override enableJsonFlag = true;
  static override flags = {
    group: groupFlag,
    limit: Flags.integer({ description: 'at most this many (default 50, at most 200)', min: 1 }),
    before: Flags.integer({ description: 'only memories older than this id (the next page)', min: 1 }),
  };
  static override examples = ['<%= config.bin %> claw memory list', '<%= config.bin %> claw memory list --group ops --limit 20 --before 120'];

  async run(): Promise<ListResult> {
    const { flags } = await this.parse(ClawMemoryList);
    const page = await callMemory<ListResult>('memory.list', { group: flags.group, limit: flags.limit, before: flags.before });
    if (!this.jsonEnabled()) {
      if (page.entries.length === 0) this.log(flags.before === undefined ? `group ${page.group} has no memories` : `group ${page.group} has no memories before #${flags.before}`);
      else this.log(renderMemories(page.entries));
      if (page.nextBefore !== null) this.log(`more: xdog claw memory list --group ${page.group} --before ${page.nextBefore}`);
    }
    return page;
  }
}
