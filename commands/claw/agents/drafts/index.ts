import { Flags } from '@oclif/core';
import { SavedDraftStore, draftAge, type SavedDraftListing } from '../../../../core/saved-drafts.js';
import { XdogCommand } from '../../../base-command.js';
import { clean, table } from '../../_lib/render.js';

export default class ClawAgentsDrafts extends XdogCommand {
  static override summary = 'List the saved drafts of child agents and of the TUI editor (no gateway needed)';
  static override description = `Snapshots saved in \`xdog claw tui\` (S/F in /agents, /agents draft ..., Ctrl+Alt+S), kept in $XDG_STATE_HOME/xdog/claw/saved-drafts/GROUP/ until deleted. Only their metadata is shown: \`drafts show ID\` prints one's text. A file that fails validation is listed as unreadable, with the fix.`;
  static override enableJsonFlag = true;
  static override flags = { group: Flags.string({ char: 'g', description: 'only the drafts of this group (default: every group)' }) };
  static override examples = ['<%= config.bin %> claw agents drafts', '<%= config.bin %> claw agents drafts --group main --json'];

  async run(): Promise<SavedDraftListing> {
    const { flags } = await this.parse(ClawAgentsDrafts);
    const listing = await new SavedDraftStore().list(flags.group);
    if (!this.jsonEnabled()) {
      this.log(
        listing.drafts.length
          ? table(
              ['ID', 'GROUP', 'KIND', 'CHILD', 'SIZE', 'AGE', 'FIRST LINE'],
              listing.drafts.map((draft) => [draft.id, draft.group, draft.kind, draft.child ?? '-', `${draft.bytes} B`, draftAge(draft.createdAt), clean(draft.firstLine, 60)]),
            )
          : '(no saved drafts)',
      );
      for (const bad of listing.unreadable) this.log(`unreadable ${bad.file}: ${bad.problem} (fix: ${bad.hint})`);
    }
    return listing;
  }
}
