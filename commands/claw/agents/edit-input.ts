import { Args } from '@oclif/core';
import type { ChildInputRecord } from '../../../plugins/children/index.js';
import { XdogCommand } from '../../base-command.js';
import { callAgents, inputNumber, renderInputs } from '../_lib/agents.js';
import { groupFlag } from '../_lib/gateway.js';

export default class ClawAgentsEditInput extends XdogCommand {
  static override summary = "Change the text of a running child's steer or follow-up its model has not taken in yet";
  static override description = 'The input keeps its place in the queue. Refused (nothing changed) once the child took it in: send a new steer or follow-up then.';
  static override enableJsonFlag = true;
  static override strict = false;
  static override args = {
    id: Args.string({ description: 'the child id (xdog claw agents list)', required: true }),
    input: Args.string({ description: 'the input number (#N in xdog claw agents inspect)', required: true }),
    text: Args.string({ description: 'the new message', required: true }),
  };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw agents edit-input c-1a2b3c4d 3 "look in lib/ instead"'];

  async run(): Promise<ChildInputRecord[]> {
    const { args, argv, flags } = await this.parse(ClawAgentsEditInput);
    // The message is every argument after the input number, so it needs no quoting.
    const inputs = await callAgents<ChildInputRecord[]>('agents.edit_input', { group: flags.group, id: args.id, input: inputNumber(args.input), text: (argv as string[]).slice(2).join(' ') });
    if (!this.jsonEnabled()) this.log(renderInputs(inputs));
    return inputs;
  }
}
