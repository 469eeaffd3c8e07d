import { Args, Flags } from '@oclif/core';
import type { Message } from '../../../core/index.js';
import type { ChildCompactionArchive } from '../../../plugins/children/index.js';
import { XdogCommand } from '../../base-command.js';
import { callAgents, renderArchives, renderMessages } from '../_lib/agents.js';
import { groupFlag } from '../_lib/gateway.js';

type Listing = { id: string; archives: ChildCompactionArchive[] };
type Archive = { id: string; messages: Message[] } & ChildCompactionArchive;

export default class ClawAgentsArchives extends XdogCommand {
  static override summary = "List a child agent's compaction archives (its full history before each compaction), or show one";
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'the child id (xdog claw agents list)', required: true }) };
  static override flags = {
    group: groupFlag,
    generation: Flags.integer({ description: 'show the messages of this archive (the N of "#N" in the list)', min: 1 }),
  };
  static override examples = ['<%= config.bin %> claw agents archives c-1a2b3c4d', '<%= config.bin %> claw agents archives c-1a2b3c4d --generation 1 --json'];

  async run(): Promise<Listing | Archive> {
    const { args, flags } = await this.parse(ClawAgentsArchives);
    if (flags.generation === undefined) {
      const listing = await callAgents<Listing>('agents.compaction_archives', { group: flags.group, id: args.id });
      if (!this.jsonEnabled()) this.log(renderArchives(listing.id, listing.archives));
      return listing;
    }
    const archive = await callAgents<Archive>('agents.compaction_archive', { group: flags.group, id: args.id, generation: flags.generation });
    if (!this.jsonEnabled()) this.log([`child ${archive.id}: archive #${archive.generation}, ${archive.messageCount} messages before that compaction`, renderMessages(archive.messages)].join('\n'));
    return archive;
  }
}
