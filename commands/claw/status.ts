import type { GatewayStatus } from '../../plugins/claw-gateway/protocol.js';
import type { PlanProblem } from '../../plugins/plan/index.js';
import type { GatewayConnection } from '../../plugins/claw-gateway/client.js';
import type { TodoView } from '../../plugins/todos/index.js';
import { describeError } from '../../core/errors.js';
import { terminalSafe } from '../../core/terminal-text.js';
import { XdogCommand } from '../base-command.js';
import { withGateway } from './_lib/gateway.js';
import { gatewayLocations } from '../../plugins/claw-gateway/locations.js';
import type { WebState } from '../../plugins/claw-web/state-file.js';
import { renderGatewayStatus } from './_lib/render.js';

/** A group's todo summary line (null: an empty list), or why it could not be read. */
export interface GroupTodos {
  group: string;
  summary: string | null;
  problem?: string;
}

/** The gateway's status, plus problems its services report (a plan that cannot be read) and each group's todos. */
/** `web`: the dashboard (xdog claw web) when one runs, with `exposed` when it listens beyond loopback. */
export type ClawStatusResult = GatewayStatus & { problems: PlanProblem[]; todos: GroupTodos[]; web: WebState | null };

async function groupTodos(gateway: GatewayConnection, group: string): Promise<GroupTodos> {
  try {
    const view = (await gateway.callService('todos.get', { group })) as TodoView;
    return { group, summary: view.summary };
  } catch (error) {
    return { group, summary: null, problem: describeError(error) };
  }
}

export default class ClawStatus extends XdogCommand {
  static override summary = 'Show the gateway and its groups: busy or idle, queued inputs, model, active session';
  static override description = 'Exit 1 with a message when no gateway runs (start one with xdog claw gateway start). Problems that deny a group\'s tools (a corrupt plan) are listed last.';
  static override enableJsonFlag = true;
  static override examples = ['<%= config.bin %> claw status', '<%= config.bin %> claw status --json | jq ".groups[].busy"'];

  async run(): Promise<ClawStatusResult> {
    await this.parse(ClawStatus);
    const status = await withGateway(async (gateway) => {
      const gatewayStatus = (await gateway.call('gateway.status', {})) as GatewayStatus;
      const problems = gateway.hello.capabilities.includes('plan:1') ? ((await gateway.callService('plan.health', {})) as PlanProblem[]) : [];
      const todos = gateway.hello.capabilities.includes('todos:1') ? await Promise.all(gatewayStatus.groups.map((group) => groupTodos(gateway, group.name))) : [];
      return { ...gatewayStatus, problems, todos };
    });
    const { runningWebState } = await import('../../plugins/claw-web/state-file.js');
    const web = runningWebState(gatewayLocations());
    if (!this.jsonEnabled()) {
      const lines = [
        renderGatewayStatus(status),
        ...status.groups.filter((group) => group.sandbox).map((group) => terminalSafe(`${group.name}: sandbox ${group.sandbox}`)),
        ...status.todos.filter((todos) => todos.summary || todos.problem).map((todos) => terminalSafe(`${todos.group}: ${todos.summary ?? `todos unreadable: ${todos.problem}`}`)),
        ...status.problems.map((problem) => terminalSafe(`problem: group ${problem.group}: ${problem.problem}`)),
        ...(web ? [terminalSafe(`web: dashboard at ${web.url} (pid ${web.pid})${web.exposed ? '; warning: it listens beyond loopback, other machines can reach it' : ''}`)] : []),
      ];
      this.log(lines.join('\n'));
    }
    return { ...status, web };
  }
}
