/**
 * The claw TUI plugin: a terminal client of the gateway (docs/tui.md).
 * Selecting it starts nothing; `new ClawTui(options).run()` (what
 * `xdog claw tui` calls) does.
 */
import { definePlugin } from '../../core/index.js';

export { ClawTui, type ClawTuiOptions } from './app.js';
export { keybindingsFile, loadKeybindings, ACTIONS, type Action } from './keybindings.js';
export { SLASH_COMMANDS, type SlashCommand } from './slash-commands.js';

export default definePlugin({
  name: 'claw-tui',
  provides: {},
});
