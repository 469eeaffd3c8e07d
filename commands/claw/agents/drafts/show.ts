import { Args, Flags } from '@oclif/core';
import { SavedDraftStore, type SavedDraft } from '../../../../core/saved-drafts.js';
import { XdogCommand } from '../../../base-command.js';

export default class ClawAgentsDraftsShow extends XdogCommand {
  static override summary = 'Print one saved draft: its metadata, then its whole text';
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'the draft id (xdog claw agents drafts)', required: true }) };
  static override flags = { group: Flags.string({ char: 'g', description: 'the group that holds it (default: looked up in every group)' }) };
  static override examples = ['<%= config.bin %> claw agents drafts show d-0123456789ab'];

  async run(): Promise<SavedDraft> {
    const { args, flags } = await this.parse(ClawAgentsDraftsShow);
    const draft = await new SavedDraftStore().read(args.id, flags.group);
    if (!this.jsonEnabled()) {
      this.log(`${draft.id} ${draft.kind}${draft.child ? ` for child ${draft.child}` : ''} · group ${draft.group} · saved ${draft.createdAt}${draft.sessionId ? ` in session ${draft.sessionId}` : ''} · sha256 ${draft.sha256}`);
      this.log('');
      this.log(draft.text);
    }
    return draft;
  }
}
