/**
 * The TUI's extension commands: `/extensions [list|reload ID|unload ID]` and
 * `/ext-ID-NAME ARGS` through the gateway's `extensions.*` methods (the same
 * front-end logic as `xdog agent chat`), with completion in the editor for
 * text that starts with `/ext`. Reload and unload need an idle group (the
 * gateway refuses them with BUSY otherwise). The extensions' dialogs
 * (`extension.dialog`) open one at a time over the chat, oldest first; their
 * status lines (`extension.status`) show above the editor, one per key.
 */
import { matchesKey, Text, type AutocompleteItem, type AutocompleteProvider } from '@mariozechner/pi-tui';
import { terminalSafe } from '../../core/terminal-text.js';
import { style } from './chat-view.js';
import { completeExtensionSlash, runExtensionSlash, type ExtensionControl, type ExtensionInfo } from '../extensions/index.js';
import type { GatewayConnection } from '../claw-gateway/index.js';
import type { ClawTui } from './app.js';
import { redrawEverySecond } from './dialog-parts.js';
import { ExtensionDialog, type ExtensionDialogView } from './extension-dialog.js';

export class TuiExtensions {
  readonly control: ExtensionControl;

  constructor(private readonly app: ClawTui) {
    this.control = {
      list: (activate) => this.app.call('extensions.list', { activate }) as Promise<ExtensionInfo[]>,
      reload: (id) => this.app.call('extensions.reload', { id }) as Promise<ExtensionInfo>,
      unload: (id) => this.app.call('extensions.unload', { id }) as Promise<ExtensionInfo>,
      run: async (command, args) => ((await this.app.call('extensions.command', { command, args })) as { text: string }).text,
      complete: async (command, prefix) => ((await this.app.call('extensions.complete', { command, prefix })) as { items: string[] }).items,
    };
  }

  /** The extensions' status lines, drawn above the editor. */
  readonly statusLine = new Text('', 1, 0);
  readonly #status = new Map<string, Record<string, string>>();
  /** Extension shortcuts: key to `/ext-ID-NAME` (the first extension listed keeps a key). */
  #shortcuts = new Map<string, string>();

  /** Dialogs waiting to be shown after the one on screen. */
  readonly #waiting: ExtensionDialogView[] = [];
  #shown: ExtensionDialog | undefined;
  #countdown: NodeJS.Timeout | undefined;

  /** Follows the group's extension dialogs on a new connection (those already waiting too). */
  attach(connection: GatewayConnection, group: string): void {
    this.#waiting.length = 0;
    this.#hide();
    connection.on('extension.dialog', (view: ExtensionDialogView) => view.group === group && this.#ask(view));
    this.#status.clear();
    this.#drawStatus();
    connection.on('extension.status', (params: { group: string; extension: string; status: Record<string, string> }) => params.group === group && this.#setStatus(params.extension, params.status));
    this.#refresh(true);
    connection.on('extension.dialog.closed', (params: { group: string; dialogId: string; reason: string }) => params.group === group && this.#closed(params.dialogId, params.reason));
    if (!this.app.methods.has('extensions.dialogs')) return;
    this.app.call('extensions.dialogs', {}).then(
      (views: ExtensionDialogView[]) => views.forEach((view) => this.#ask(view)),
      (error: unknown) => this.app.error(error),
    );
  }

  #setStatus(extension: string, status: Record<string, string>): void {
    if (Object.keys(status).length) this.#status.set(extension, status);
    else this.#status.delete(extension);
    this.#drawStatus();
  }

  #drawStatus(): void {
    const lines = [...this.#status].flatMap(([extension, status]) => Object.entries(status).map(([key, text]) => `${extension} ${key}: ${text}`));
    this.statusLine.setText(lines.length ? style.dim(terminalSafe(lines.join('\n'))) : '');
    this.app.tui.requestRender();
  }

  #ask(view: ExtensionDialogView): void {
    if (this.#shown?.view.dialogId === view.dialogId || this.#waiting.some((waiting) => waiting.dialogId === view.dialogId)) return;
    this.#waiting.push(view);
    if (!this.#shown) this.#showNext();
  }

  #showNext(): void {
    const view = this.#waiting.shift();
    if (!view) return;
    const dialog = new ExtensionDialog(view, (answer) => {
      this.#hide();
      this.app.call('extensions.answer', { dialogId: view.dialogId, answer }).catch((error: unknown) => this.app.error(error));
      this.#showNext();
    });
    this.#shown = dialog;
    this.app.showOverlay(dialog);
    this.#countdown = redrawEverySecond(() => this.app.tui.requestRender());
  }

  #hide(): void {
    if (this.#countdown) clearInterval(this.#countdown);
    this.#countdown = undefined;
    if (this.#shown) this.app.closeOverlay();
    this.#shown = undefined;
  }

  /** Answered by another client, or timed out: its dialog goes, with a notice. */
  #closed(dialogId: string, reason: string): void {
    const at = this.#waiting.findIndex((view) => view.dialogId === dialogId);
    if (at >= 0) this.#waiting.splice(at, 1);
    if (this.#shown?.view.dialogId !== dialogId) return;
    this.#hide();
    if (reason !== 'answered') this.app.notice(`the extension dialog ${reason}; the extension got no answer`);
    else this.app.notice('the extension dialog was answered');
    this.#showNext();
  }

  /** Runs one command and shows its text in a pager. */
  async run(text: string): Promise<void> {
    try {
      this.app.page(text.trim().split(/\s+/)[0]!, await runExtensionSlash(this.control, text));
    } finally {
      // Running a command starts the extensions, which may register shortcuts.
      this.#refresh(false);
    }
  }

  /** Runs the extension command bound to this key; false when none is. */
  runShortcut(data: string): boolean {
    const command = [...this.#shortcuts].find(([key]) => matchesKey(data, key as never))?.[1];
    if (!command) return false;
    this.run(`/${command}`).catch((error: unknown) => this.app.error(error));
    return true;
  }

  /** Reads the extensions' shortcuts (and, on a new connection, their status lines) without starting them. */
  #refresh(withStatus: boolean): void {
    if (!this.app.methods.has('extensions.list')) return;
    this.control.list(false).then(
      (infos) => {
        const shortcuts = new Map<string, string>();
        for (const info of infos) {
          for (const [key, command] of Object.entries(info.shortcuts ?? {})) if (!shortcuts.has(key)) shortcuts.set(key, command);
          if (withStatus) this.#setStatus(info.id, info.status);
        }
        this.#shortcuts = shortcuts;
      },
      (error: unknown) => this.app.error(error),
    );
  }

  /** Completion in the editor for `/ext…` on the first line; nothing for other text (the other commands keep their behaviour). */
  autocomplete(): AutocompleteProvider {
    return {
      getSuggestions: async (lines, cursorLine, cursorCol) => {
        const typed = (lines[cursorLine] ?? '').slice(0, cursorCol);
        if (cursorLine !== 0 || !typed.startsWith('/ext') || !this.app.connection) return null;
        const items: AutocompleteItem[] = (await completeExtensionSlash(this.control, typed).catch(() => [])).map((value) => ({ value, label: value }));
        return items.length ? { items, prefix: typed } : null;
      },
      applyCompletion: (lines, cursorLine, cursorCol, item) => {
        const line = lines[cursorLine] ?? '';
        const next = [...lines];
        next[cursorLine] = item.value + line.slice(cursorCol);
        return { lines: next, cursorLine, cursorCol: item.value.length };
      },
    };
  }
}
