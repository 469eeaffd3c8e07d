/**
 * The TUI's extension commands: `/extensions [list|reload ID|unload ID]` and
 * `/ext-ID-NAME ARGS` through the gateway's `extensions.*` methods (the same
 * front-end logic as `xdog agent chat`), with completion in the editor for
 * text that starts with `/ext`. Reload and unload need an idle group (the
 * gateway refuses them with BUSY otherwise).
 */
import type { AutocompleteItem, AutocompleteProvider } from '@mariozechner/pi-tui';
import { completeExtensionSlash, runExtensionSlash, type ExtensionControl, type ExtensionInfo } from '../extensions/index.js';
import type { ClawTui } from './app.js';

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

  /** Runs one command and shows its text in a pager. */
  async run(text: string): Promise<void> {
    this.app.page(text.trim().split(/\s+/)[0]!, await runExtensionSlash(this.control, text));
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
