import { ErrorCodes, XdogError } from '../../core/errors.js';
import { terminalSafe } from '../../core/terminal-text.js';
import type { TodoView } from '../../plugins/todos/index.js';
// The pure module only: this command loads the gateway client, not the plugin's gateway side.
import { renderTodos } from '../../plugins/todos/state.js';
import { XdogCommand } from '../base-command.js';
import { groupFlag, withGateway } from './_lib/gateway.js';

export default class ClawTodos extends XdogCommand {
  static override summary = "Show the todo list the model keeps in a group's active session";
  static override description =
    'The model keeps it with todo_write (pending, in_progress, done) and reads it with todo_read; it survives gateway restarts and compactions. Reading it never starts a turn.';
  static override enableJsonFlag = true;
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw todos', '<%= config.bin %> claw todos --group main --json | jq ".items[] | select(.status != \\"done\\")"'];

  async run(): Promise<TodoView> {
    const { flags } = await this.parse(ClawTodos);
    const view = await withGateway(async (gateway): Promise<TodoView> => {
      if (!gateway.hello.capabilities.includes('todos:1')) {
        throw new XdogError(ErrorCodes.UNSUPPORTED, 'this gateway keeps no todo lists (no capability todos:1)', { hint: 'restart the gateway with this xdog version: xdog claw gateway restart' });
      }
      return gateway.callService('todos.get', { group: flags.group });
    });
    if (!this.jsonEnabled()) {
      const head = `group ${view.group}${view.sessionId ? `, session ${view.sessionId}` : ' (no session yet)'}${view.summary ? `: ${view.summary}` : ''}`;
      this.log(terminalSafe([head, renderTodos(view.items)].join('\n')));
    }
    return view;
  }
}
