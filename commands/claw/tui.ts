import { ErrorCodes, XdogError } from '../../core/errors.js';
import { ClientFeatures, connectGateway } from '../../plugins/claw-gateway/index.js';
import { ClawTui, keybindingsFile } from '../../plugins/claw-tui/index.js';
import { XdogCommand } from '../base-command.js';
import { groupFlag } from './_lib/gateway.js';

export default class ClawTuiCommand extends XdogCommand {
  static override summary = "Chat with a group's active session in the terminal, through the running gateway";
  static override description = `A full-screen-free terminal client: the conversation goes to the terminal's own scrollback, the editor and a footer stay at the bottom.
Enter sends, Shift+Enter or Alt+Enter adds a line, Esc aborts the running turn, Ctrl+C twice quits; /help lists the commands and /keys the keys (docs/tui.md).
It needs a running gateway (xdog claw gateway start) and a terminal; it reconnects by itself and never resends what may have been received.`;
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw tui', '<%= config.bin %> claw tui --group review'];

  async run(): Promise<void> {
    const { flags } = await this.parse(ClawTuiCommand);
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new XdogError(ErrorCodes.USAGE, 'xdog claw tui needs a terminal on stdin and stdout', { hint: 'for scripts use xdog claw send' });
    }
    // Fail at once (one line) when no gateway answers; later losses are handled inside by reconnecting.
    // The TUI shows a group's MCP elicitations and answers them: it says so, so the gateway asks it.
    const features = [ClientFeatures.mcpElicitation];
    const first = await connectGateway({ client: 'xdog-tui', features });
    let handed = false;
    const tui = new ClawTui({
      group: flags.group,
      keybindingsFile: keybindingsFile(),
      connect: async () => {
        if (!handed) {
          handed = true;
          return first;
        }
        return connectGateway({ client: 'xdog-tui', features, timeoutMs: 5000 });
      },
    });
    await tui.run();
  }
}
