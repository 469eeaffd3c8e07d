/**
 * The TUI's extension commands: `/extensions [list|reload ID|unload ID]` and
 * `/ext-ID-NAME ARGS` through the gateway's `extensions.*` methods (the same
 * front-end logic as `xdog agent chat`), with completion in the editor for
 * text that starts with `/ext` or a command's public name (the token at the
 * cursor is replaced; the callback gets the whole argument context), and
 * `/artifact [save] PATH` for rich results. Reload and unload need an idle group (the
 * gateway refuses them with BUSY otherwise). The extensions' dialogs
 * (`extension.dialog`) open one at a time over the chat, oldest first; their
 * status lines (`extension.status`) show above the editor, one per key.
 */
import { matchesKey, Text, type AutocompleteItem, type AutocompleteProvider } from '@mariozechner/pi-tui';
import { terminalSafe } from '../../core/terminal-text.js';
import { style } from './chat-view.js';
import { completeExtensionSlash, isExtensionSlash, publicCommands, runExtensionSlash, type ExtensionCommandResult, type ExtensionControl, type ExtensionInfo, type ResultShelf } from '../extensions/index.js';
import { SLASH_COMMANDS } from './slash-commands.js';
import type { GatewayConnection } from '../claw-gateway/index.js';
import type { ClawTui } from './app.js';
import { redrawEverySecond } from './dialog-parts.js';
import { ExtensionDialog, type ExtensionDialogView } from './extension-dialog.js';

export class TuiExtensions {
  readonly control: ExtensionControl;

  constructor(
    private readonly app: ClawTui,
    /** keybindings.json's keys for extension commands (`ext-ID-NAME`); `[]` unbinds one. */
    private readonly overrides: Readonly<Record<string, string[]>> = {},
  ) {
    this.control = {
      list: (activate) => this.app.call('extensions.list', { activate }) as Promise<ExtensionInfo[]>,
      reload: (id) => this.app.call('extensions.reload', { id }) as Promise<ExtensionInfo>,
      unload: (id) => this.app.call('extensions.unload', { id }) as Promise<ExtensionInfo>,
      // A gateway without extension-command-results:1 refuses `results`; it answers the text alone.
      run: async (command, args) => {
        const answer = (await this.app.call('extensions.command', { command, args, ...(this.#can('extension-command-results:1') && { results: true }) })) as { text: string; result?: ExtensionCommandResult };
        return answer.result ?? answer.text;
      },
      complete: async (command, prefix, context) => ((await this.app.call('extensions.complete', { command, prefix, ...(context && this.#can('extension-argument-context:1') && { context }) })) as { items: string[] }).items,
    };
  }

  #can(capability: string): boolean {
    return this.app.connection?.hello.capabilities.includes(capability) ?? false;
  }

  /** The latest rich result (what `/artifact save PATH` writes). */
  readonly #shelf: ResultShelf = {};
  /** Public command names to their aliases; the TUI's own commands are refused to them (said once each). */
  #publicNames = new Map<string, string>();
  readonly #refusalsSaid = new Set<string>();

  /**
   * For a `/word` that is no TUI command and no public name known yet: starts
   * the extensions (they may register it), then whether one has it as its public name.
   */
  async claims(text: string): Promise<boolean> {
    const word = /^\/([a-z][a-z0-9-]*)(\s|$)/.exec(text.trimStart())?.[1];
    if (!word || SLASH_COMMANDS.some((command) => command.name === word) || !this.app.methods.has('extensions.list')) return false;
    // A group without extensions answers an error: then the word is simply not an extension's.
    const infos = await this.control.list(true).catch(() => undefined);
    if (infos) this.#learn(infos, false);
    return this.owns(text);
  }

  /** True for text an extension command runs: `/ext…`, `/extensions`, `/artifact` or a public name. */
  owns(text: string): boolean {
    return isExtensionSlash(text) || this.#publicNames.has(/^\/(\S+)/.exec(text.trimStart())?.[1] ?? '');
  }

  /** The extensions' status lines, drawn above the editor. */
  readonly statusLine = new Text('', 1, 0);
  readonly #status = new Map<string, Record<string, string>>();
  /** Extension shortcuts: key to `/ext-ID-NAME` (the first extension listed keeps a key). */
  #shortcuts = new Map<string, string>();
  /** The commands of the active extensions, as last listed (an override of another is "unavailable"). */
  #activeCommands = new Set<string>();

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

  /** Runs one command and shows its text (or rich result) in a pager: shown only, never sent to the model. */
  async run(text: string): Promise<void> {
    try {
      this.app.page(text.trim().split(/\s+/)[0]!, (await runExtensionSlash(this.control, text, this.#shelf)).text);
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

  /** The extension shortcuts for `/keys`: each key in effect, then each command the file names with what became of it. */
  keyLines(): string[] {
    const lines = [...this.#shortcuts].filter(([, command]) => !(command in this.overrides)).map(([key, command]) => `${key.padEnd(15)} /${command}`);
    for (const [command, keys] of Object.entries(this.overrides)) {
      const state = !this.#activeCommands.has(command) ? 'unavailable: no active extension has this command (keybindings.json does not start extensions)' : keys.length ? 'set by keybindings.json' : 'disabled by keybindings.json';
      lines.push(`${(keys.join(', ') || '(disabled)').padEnd(15)} /${command} · ${state}`);
    }
    return lines;
  }

  /** Reads the extensions' shortcuts (and, on a new connection, their status lines) without starting them. */
  #refresh(withStatus: boolean): void {
    if (!this.app.methods.has('extensions.list')) return;
    this.control.list(false).then(
      (infos) => this.#learn(infos, withStatus),
      (error: unknown) => this.app.error(error),
    );
  }

  /** Takes the extensions' shortcuts and public names (the TUI's own commands refused to them, said once each). */
  #learn(infos: readonly ExtensionInfo[], withStatus: boolean): void {
    const shortcuts = new Map<string, string>();
    const { names, refused } = publicCommands(infos, new Set(SLASH_COMMANDS.map((command) => command.name)));
    this.#publicNames = names;
    for (const reason of refused.filter((reason) => !this.#refusalsSaid.has(reason))) {
      this.#refusalsSaid.add(reason);
      this.app.notice(reason);
    }
    const active = new Set<string>();
    for (const info of infos) {
      if (info.state === 'active') for (const command of info.commands) active.add(command);
      // A command the file names gets the file's keys instead of its own (checked against the TUI's when loaded).
      for (const [key, command] of Object.entries(info.shortcuts ?? {})) if (!shortcuts.has(key) && !(command in this.overrides)) shortcuts.set(key, command);
      if (withStatus) this.#setStatus(info.id, info.status);
    }
    for (const [command, keys] of Object.entries(this.overrides)) if (active.has(command)) for (const key of keys) shortcuts.set(key, command);
    this.#shortcuts = shortcuts;
    this.#activeCommands = active;
  }

  /** Completion in the editor for extension commands on the first line; nothing for other text (the other commands keep their behaviour). */
  autocomplete(): AutocompleteProvider {
    /** The draft line and cursor the suggestions were made for, and where each suggested line puts the cursor. */
    let asked = { line: '', cursor: -1 };
    let cursors = new Map<string, number>();
    return {
      getSuggestions: async (lines, cursorLine, cursorCol) => {
        const line = lines[cursorLine] ?? '';
        if (cursorLine !== 0 || lines.length > 1 || !this.owns(line) || !this.app.connection) return null;
        // The editor has the whole draft: the callback gets the argument context.
        const found = await completeExtensionSlash(this.control, line, { cursor: cursorCol, full: true, publicNames: new Set(this.#publicNames.keys()) }).catch(() => []);
        asked = { line, cursor: cursorCol };
        cursors = new Map(found.map((item) => [item.line, item.cursor]));
        const items: AutocompleteItem[] = found.map((item) => ({ value: item.line, label: item.label }));
        return items.length ? { items, prefix: line.slice(0, cursorCol) } : null;
      },
      applyCompletion: (lines, cursorLine, cursorCol, item) => {
        // A suggestion made for another draft or cursor never overwrites the editor (Tab asks again).
        if (lines[cursorLine] !== asked.line || cursorCol !== asked.cursor || !cursors.has(item.value)) return { lines, cursorLine, cursorCol };
        const next = [...lines];
        next[cursorLine] = item.value;
        return { lines: next, cursorLine, cursorCol: cursors.get(item.value) ?? item.value.length };
      },
    };
  }
}
