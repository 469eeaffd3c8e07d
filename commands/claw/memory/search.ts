import { Args, Flags } from '@oclif/core';
import type { MemorySearchHit } from '../../../plugins/memory/index.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag } from '../_lib/gateway.js';
import { callMemory, renderMemories } from '../_lib/memory.js';

interface SearchResult {
  group: string;
  results: MemorySearchHit[];
}

export default class ClawMemorySearch extends XdogCommand {
  static override summary = "Search a group's memories by words, best first (exact phrase matches first)";
  static override description = 'The query is read as plain words (no search syntax); a memory matches when it holds any of them.';
  static override enableJsonFlag = true;
  static override args = { query: Args.string({ description: 'words to look for', required: true }) };
  static override flags = { group: groupFlag, limit: Flags.integer({ description: 'at most this many results (default 8, at most 25)', min: 1 }) };
  static override examples = ['<%= config.bin %> claw memory search "deploy key"', '<%= config.bin %> claw memory search database --group ops --limit 20 --json'];

  async run(): Promise<SearchResult> {
    const { args, flags } = await this.parse(ClawMemorySearch);
    const result = await callMemory<SearchResult>('memory.search', { group: flags.group, query: args.query, limit: flags.limit });
    if (!this.jsonEnabled()) this.log(result.results.length ? renderMemories(result.results) : `no memory of group ${result.group} matches ${JSON.stringify(args.query)}`);
    return result;
  }
}
