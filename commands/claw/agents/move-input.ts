import { Args } from '@oclif/core';
import type { ChildInputRecord } from '../../../plugins/children/index.js';
import { XdogCommand } from '../../base-command.js';
import { callAgents, inputNumber, renderInputs } from '../_lib/agents.js';
import { groupFlag } from '../_lib/gateway.js';

export default class ClawAgentsMoveInput extends XdogCommand {
  static override summary = "Move a running child's queued steer or follow-up one place up or down in its lane";
  static override description =
    'Steers and follow-ups queue in two lanes; up takes the input one place earlier among the queued ones of its lane, down one place later. Refused (nothing changed) once the child took it in, or the one it would pass.';
  static override enableJsonFlag = true;
  static override args = {
    id: Args.string({ description: 'the child id (xdog claw agents list)', required: true }),
    input: Args.string({ description: 'the input number (#N in xdog claw agents inspect)', required: true }),
    direction: Args.string({ description: 'up (earlier) or down (later)', required: true, options: ['up', 'down'] }),
  };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw agents move-input c-1a2b3c4d 4 up'];

  async run(): Promise<ChildInputRecord[]> {
    const { args, flags } = await this.parse(ClawAgentsMoveInput);
    const inputs = await callAgents<ChildInputRecord[]>('agents.move_input', { group: flags.group, id: args.id, input: inputNumber(args.input), by: args.direction === 'up' ? -1 : 1 });
    if (!this.jsonEnabled()) this.log(renderInputs(inputs));
    return inputs;
  }
}
