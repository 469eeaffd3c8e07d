import { Args, Flags } from '@oclif/core';
import { SavedDraftStore, type SavedDraftSummary } from '../../../../core/saved-drafts.js';
import { XdogCommand } from '../../../base-command.js';

export default class ClawAgentsDraftsDelete extends XdogCommand {
  static override summary = "Delete one saved draft's file (an unreadable one too)";
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'the draft id (xdog claw agents drafts)', required: true }) };
  static override flags = { group: Flags.string({ char: 'g', description: 'the group that holds it (default: looked up in every group)' }) };
  static override examples = ['<%= config.bin %> claw agents drafts delete d-0123456789ab'];

  async run(): Promise<{ deleted: string; draft: SavedDraftSummary | null }> {
    const { args, flags } = await this.parse(ClawAgentsDraftsDelete);
    const draft = await new SavedDraftStore().delete(args.id, flags.group);
    if (!this.jsonEnabled()) this.log(draft ? `deleted saved draft ${args.id} (${draft.kind}, group ${draft.group}, ${draft.bytes} B)` : `deleted saved draft ${args.id} (it was unreadable)`);
    return { deleted: args.id, draft };
  }
}
