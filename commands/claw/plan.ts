import { Args, Flags } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import type { PlanView } from '../../plugins/plan/index.js';
import { XdogCommand } from '../base-command.js';
import { parsePositive } from './_lib/args.js';
import { groupFlag, withGateway } from './_lib/gateway.js';
import { terminalSafe } from '../../core/terminal-text.js';

const ACTIONS = ['show', 'start', 'execute', 'revise', 'stop'] as const;

export default class ClawPlan extends XdogCommand {
  static override summary = "Show or change the plan mode of a group's active session";
  static override description =
    'start OBJECTIVE enters plan mode: the agent may only read (read, ls, grep, find, current_time) and keep its steps with update_plan. ' +
    'execute REVISION lets it carry the plan out (refused if the plan changed since that revision); revise returns to planning; stop ends plan mode. ' +
    'None of them starts a turn. Changes need an idle group.';
  static override enableJsonFlag = true;
  static override strict = false;
  static override args = {
    action: Args.string({ description: 'show, start, execute, revise or stop', options: [...ACTIONS], default: 'show' }),
    value: Args.string({ description: 'start: the objective (the rest of the line); execute, revise, stop: the revision' }),
  };
  static override flags = { group: groupFlag, expect: Flags.string({ description: 'the active-session id you expect (refused if it changed since)' }) };
  static override examples = [
    '<%= config.bin %> claw plan start "move the config loader to zod"',
    '<%= config.bin %> claw plan',
    '<%= config.bin %> claw plan execute 3',
    '<%= config.bin %> claw plan revise',
    '<%= config.bin %> claw plan stop',
  ];

  async run(): Promise<PlanView> {
    const { args, argv, flags } = await this.parse(ClawPlan);
    const action = args.action as (typeof ACTIONS)[number];
    const words = (argv as string[]).slice(1);
    const target = { group: flags.group, ...(flags.expect === undefined ? {} : { expectedSessionId: flags.expect }) };
    const revision = (required: boolean): { revision?: number } => {
      if (words.length > 1) throw new XdogError(ErrorCodes.USAGE, `plan ${action} takes one revision, not ${words.length} words`);
      if (words[0] === undefined) {
        if (required) throw new XdogError(ErrorCodes.USAGE, `plan ${action} needs the REVISION you reviewed`, { hint: '`xdog claw plan` shows it' });
        return {};
      }
      return { revision: parsePositive('REVISION', words[0]) };
    };
    const view = await withGateway(async (gateway): Promise<PlanView> => {
      switch (action) {
        case 'show':
          return gateway.callService('plan.show', { group: flags.group });
        case 'start': {
          const objective = words.join(' ');
          if (!objective.trim()) throw new XdogError(ErrorCodes.USAGE, 'plan start needs an OBJECTIVE', { hint: 'xdog claw plan start "what the plan is for"' });
          return gateway.callService('plan.start', { ...target, objective });
        }
        case 'execute':
          return gateway.callService('plan.execute', { ...target, ...revision(true) });
        case 'revise':
          return gateway.callService('plan.revise', { ...target, ...revision(false) });
        case 'stop':
          return gateway.callService('plan.stop', { ...target, ...revision(false) });
      }
    });
    if (!this.jsonEnabled()) this.log(view.text === null ? `session ${view.sessionId}: no plan` : terminalSafe(view.text));
    return view;
  }
}
