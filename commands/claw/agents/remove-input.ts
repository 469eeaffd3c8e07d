import { Args } from '@oclif/core';
import type { ChildInputRecord } from '../../../plugins/children/index.js';
import { XdogCommand } from '../../base-command.js';
import { callAgents, inputNumber, renderInputs } from '../_lib/agents.js';
import { groupFlag } from '../_lib/gateway.js';

export default class ClawAgentsRemoveInput extends XdogCommand {
  static override summary = "Take a running child's steer or follow-up out of its queue before its model takes it in";
  static override description = 'The journal keeps it as removed. Refused (nothing changed) once the child took it in.';
  static override enableJsonFlag = true;
  static override args = {
    id: Args.string({ description: 'the child id (xdog claw agents list)', required: true }),
    input: Args.string({ description: 'the input number (#N in xdog claw agents inspect)', required: true }),
  };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw agents remove-input c-1a2b3c4d 3'];

  async run(): Promise<ChildInputRecord[]> {
    const { args, flags } = await this.parse(ClawAgentsRemoveInput);
    const inputs = await callAgents<ChildInputRecord[]>('agents.remove_input', { group: flags.group, id: args.id, input: inputNumber(args.input) });
    if (!this.jsonEnabled()) this.log(renderInputs(inputs));
    return inputs;
  }
}
