/**
 * The TUI's saved draft snapshots (core/saved-drafts.ts): saving a child's
 * start task, steer or follow-up instead of sending it (`S`/`F` in the
 * `/agents` roster, `/agents draft ...`), the parent editor's text (Ctrl+Alt+S),
 * and the browsers that put one back: `/agents drafts` (child drafts) and
 * `/draft saved [list|ID]` (parent drafts). A snapshot goes back only into
 * an empty editor, never over text being written; a steer or follow-up only
 * while its child still runs (else it is offered as plain text). Restoring
 * sends nothing and keeps the snapshot; `x` deletes it.
 */
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { SavedDraftStore, checkDraftId, draftAge, type SavedDraft, type SavedDraftKind, type SavedDraftListing } from '../../core/saved-drafts.js';
import type { ClawTui } from './app.js';
import { Picker, type PickerItem } from './picker.js';

export type DraftShelf = 'child' | 'parent';

const CHILD_KINDS: readonly SavedDraftKind[] = ['start', 'steer', 'follow-up'];

export class SavedDrafts {
  constructor(
    private readonly app: ClawTui,
    readonly store = new SavedDraftStore(),
  ) {}

  get #group(): string {
    const group = this.app.group?.name;
    if (!group) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the group is not known yet; saved drafts are per group', { hint: 'wait for the TUI to connect' });
    return group;
  }

  /** Saves `text` as a snapshot of this group, with the session it was written in. */
  async save(kind: SavedDraftKind, text: string, child: string | null = null): Promise<SavedDraft> {
    return this.store.save({ group: this.#group, kind, child, text, sessionId: this.app.group?.activeSessionId ?? null });
  }

  /** Ctrl+Alt+S: the editor's text as a parent snapshot; the editor keeps it. */
  async keepParent(): Promise<void> {
    const text = this.app.editor.getExpandedText();
    if (!text.trim()) throw new XdogError(ErrorCodes.USAGE, 'the editor is empty; there is no draft to save', { hint: `type it, then ${this.app.keyLabel('keepDraft') ?? '/draft save TEXT'}` });
    const saved = await this.save('parent', text);
    this.app.notice(`draft saved as ${saved.id} (private snapshot; /draft saved lists them, the editor keeps it)`);
  }

  /** `/draft saved [list|ID]`. */
  async parentCommand(args: string): Promise<void> {
    const arg = args.trim();
    if (!arg || arg === 'list') return this.open('parent');
    checkDraftId(arg);
    const record = await this.store.read(arg, this.#group);
    if (record.kind !== 'parent') throw new XdogError(ErrorCodes.USAGE, `${arg} is a ${record.kind} draft of a child`, { hint: '/agents drafts puts it back' });
    this.app.notice(await this.restore(record, false));
  }

  /** The browser of this group's child drafts (`/agents drafts`) or parent drafts (`/draft saved`). */
  async open(shelf: DraftShelf): Promise<void> {
    const group = this.#group;
    const read = async (): Promise<PickerItem[]> => rows(await this.store.list(group), shelf);
    // An action's outcome: the status line, and the list read again (a delete, or files changed meanwhile).
    const settle = (work: Promise<string | undefined>, what: string): void => {
      work.then(
        async (status) => {
          if (status === undefined) return;
          picker.setStatus(status);
          picker.setItems(await read());
          this.app.tui.requestRender();
        },
        (error: unknown) => {
          picker.setStatus(`${what} refused: ${(error as Error).message}`);
          this.app.tui.requestRender();
        },
      );
    };
    const take = (plain: boolean) => (item: PickerItem) =>
      settle(
        (async () => {
          const record = await this.store.read(drafted(item), group);
          const done = await this.restore(record, plain);
          this.app.closeOverlay();
          this.app.notice(done);
          return undefined;
        })(),
        'restore',
      );
    const picker: Picker = new Picker({
      title: shelf === 'child' ? `saved child drafts of ${group}` : `saved parent drafts of ${group}`,
      items: await read(),
      height: () => this.app.tui.terminal.rows - 2,
      close: () => this.app.closeOverlay(),
      filterable: false,
      pick: take(false),
      keys: {
        ...(shelf === 'child' ? { p: ['as plain text', take(true)] as [string, (item: PickerItem) => void] } : {}),
        x: ['delete (the saved file only)', (item) => settle(Promise.resolve().then(async () => (await this.store.delete(drafted(item), group), `deleted ${item.value}; nothing else changed`)), 'delete')],
      },
    });
    this.app.showOverlay(picker);
  }

  /**
   * Puts a snapshot into the empty editor: a start task as `/agents start`,
   * a steer or follow-up as its command for the child (only while it runs),
   * anything else, or `plain`, as its text. Answers the notice; throws when
   * it was not put there (the editor unchanged).
   */
  async restore(record: SavedDraft, plain: boolean): Promise<string> {
    this.#emptyEditor(record.id);
    let text = record.text;
    if (!plain && record.kind === 'start') text = `/agents start ${record.text}`;
    else if (!plain && record.child !== null) {
      const status = await this.#childStatus(record.child);
      if (status !== 'running') {
        throw new XdogError(ErrorCodes.INVALID_STATE, `child ${record.child} is ${status}: a ${record.kind} can no longer reach it (p puts the text in the editor instead)`, { hint: 'p puts its text in the editor as plain text' });
      }
      text = `/agents ${record.kind} ${record.child} ${record.text}`;
    }
    // Checked again after the child's status was read: nothing typed meanwhile is replaced.
    this.#emptyEditor(record.id);
    this.app.editor.setText(text);
    return `saved draft ${record.id} (${record.kind}, ${record.text.length} characters) is in the editor; nothing was sent, and it stays saved (x in ${record.kind === 'parent' ? '/draft saved' : '/agents drafts'} deletes it)`;
  }

  #emptyEditor(id: string): void {
    if (this.app.editor.getText().trim() || this.app.attachments.list().length) {
      throw new XdogError(ErrorCodes.CONFLICT, `the editor holds a draft; ${id} was not put over it`, { hint: 'send or save that draft first (Ctrl+C clears it), then pick the saved one again' });
    }
  }

  async #childStatus(id: string): Promise<string> {
    try {
      return ((await this.app.call('agents.inspect', { id })) as { status: string }).status;
    } catch (error) {
      if ((error as XdogError).code === ErrorCodes.NOT_FOUND) return 'gone (closed)';
      throw error;
    }
  }
}

function drafted(item: PickerItem): string {
  if (item.value.startsWith('!')) throw new XdogError(ErrorCodes.INVALID_STATE, 'this file is unreadable; it cannot be put in the editor', { hint: item.detail ?? 'remove it' });
  return item.value;
}

/** The picker rows of one shelf: the snapshots, then the files that failed validation (with their fix). */
function rows(listing: SavedDraftListing, shelf: DraftShelf): PickerItem[] {
  const wanted = (kind: SavedDraftKind): boolean => (shelf === 'parent' ? kind === 'parent' : CHILD_KINDS.includes(kind));
  return [
    ...listing.drafts
      .filter((draft) => wanted(draft.kind))
      .reverse()
      .map((draft) => ({
        value: draft.id,
        label: `${draft.id}  ${draft.kind.padEnd(9)} ${(draft.child ?? '-').slice(0, 12).padEnd(12)} ${draftAge(draft.createdAt).padStart(4)}  ${draft.firstLine.replace(/\s+/g, ' ').slice(0, 60)}`,
        detail: `${draft.bytes} B${draft.sessionId ? ` · session ${draft.sessionId.slice(0, 8)}` : ''}`,
      })),
    ...listing.unreadable.map((bad) => ({ value: bad.id ?? `!${bad.file}`, label: `${bad.id ?? bad.file}  unreadable: ${bad.problem}`, detail: bad.hint })),
  ];
}
