/**
 * `/draft [save|restore|clear|saved]` and the draft's life across runs:
 * quitting with text in the editor saves it (DraftStore, one per group), the
 * next start of the TUI on the same group puts it back into the editor and
 * says so. A restore goes in front of what is being typed, never over it.
 * `/draft saved [list|ID]` is the other kind of saved draft: the snapshots
 * Ctrl+Alt+S keeps (SavedDrafts), many per group, kept until deleted.
 */
import { ErrorCodes, XdogError } from '../../core/errors.js';
import type { ClawTui } from './app.js';
import { DraftStore } from './draft-store.js';
import { SavedDrafts } from './saved-drafts-view.js';

export class DraftCommands {
  #store: DraftStore | undefined;
  /** The snapshots of drafts (parent and child), shared with the /agents roster. */
  readonly saved: SavedDrafts;

  constructor(private readonly app: ClawTui) {
    this.saved = new SavedDrafts(app);
  }

  get #drafts(): DraftStore {
    const group = this.app.group?.name;
    if (!group) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the group is not known yet; the draft file is per group', { hint: 'wait for the TUI to connect' });
    if (this.#store?.file !== new DraftStore(group).file) this.#store = new DraftStore(group);
    return this.#store;
  }

  run(args: string): Promise<void> | void {
    const verb = args.trim() || 'show';
    if (verb === 'saved' || verb.startsWith('saved ')) return this.saved.parentCommand(verb.slice('saved'.length));
    const drafts = this.#drafts;
    if (verb === 'save' || verb.startsWith('save ')) {
      // The command line was the editor's text (submitting empties it), so the draft is what follows `save`.
      const text = args.trim().slice('save'.length).trim();
      if (!text) throw new XdogError(ErrorCodes.USAGE, '/draft save needs the TEXT to keep', { hint: `type /draft save TEXT; ${this.app.keyLabel('keepDraft') ? `${this.app.keyLabel('keepDraft')} keeps the editor's text as a snapshot, and ` : ''}quitting keeps it too` });
      drafts.save(text);
      this.app.notice(`draft saved to ${drafts.file}`);
    } else if (verb === 'restore') {
      if (!this.restore()) this.app.notice(`there is no saved draft (${drafts.file})`);
    } else if (verb === 'clear') {
      drafts.clear();
      this.app.notice('the saved draft was removed');
    } else if (verb === 'show') {
      const saved = drafts.read();
      this.app.notice(saved === undefined ? `no saved draft (${drafts.file}); quitting with text in the editor saves it` : `saved draft (${saved.length} characters) in ${drafts.file}; /draft restore puts it in the editor`);
    } else throw new XdogError(ErrorCodes.USAGE, `unknown /draft ${verb}`, { hint: '/draft, /draft save TEXT, /draft restore, /draft clear, /draft saved [list|ID]' });
  }

  /** Puts the saved draft into the editor (ahead of any text there) and removes the file; false without one. */
  restore(): boolean {
    const drafts = this.#drafts;
    const saved = drafts.read();
    if (saved === undefined) return false;
    const current = this.app.editor.getText();
    this.app.editor.setText(current ? `${saved}\n${current}` : saved);
    drafts.clear();
    this.app.notice(`restored the draft saved when the TUI last quit (${saved.length} characters)`);
    return true;
  }

  /** At quit: keeps a non-empty draft for the next run; answers the line to print. Never throws (quitting must not fail on it). */
  saveOnQuit(text: string): string | undefined {
    try {
      if (!text.trim() || !this.app.group) return undefined;
      this.#drafts.save(text);
      return `your draft was kept in ${this.#drafts.file}; it is back in the editor at the next start`;
    } catch (error) {
      return `your draft was not kept: ${(error as Error).message}`;
    }
  }
}
