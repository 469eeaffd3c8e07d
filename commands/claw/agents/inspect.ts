import { Args, Flags } from '@oclif/core';
import { renderConversation } from '../../../core/conversation-export.js';
import { environmentSecrets } from '../../../core/redact.js';
import type { Message } from '../../../core/index.js';
import type { ChildInputRecord, DurableChildRecord } from '../../../plugins/children/index.js';
import { XdogCommand } from '../../base-command.js';
import { readChildSource, renderChildren, renderInputs, withAgents } from '../_lib/agents.js';
import { groupFlag } from '../_lib/gateway.js';

type Inspected = DurableChildRecord & { inputs: ChildInputRecord[]; transcript?: Message[] };

export default class ClawAgentsInspect extends XdogCommand {
  static override summary = 'Show one child agent with its journaled inputs, and with --transcript its stored transcript';
  static override description = `The transcript is stored when the child ends; it is read in verified chunks (agents.source) and shown redacted, or with --json as the messages themselves.`;
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'the child id (xdog claw agents list)', required: true }) };
  static override flags = { group: groupFlag, transcript: Flags.boolean({ description: "also read the child's stored transcript (in chunks, checked against its SHA-256)" }) };
  static override examples = ['<%= config.bin %> claw agents inspect c-1a2b3c4d', '<%= config.bin %> claw agents inspect c-1a2b3c4d --transcript --json'];

  async run(): Promise<Inspected> {
    const { args, flags } = await this.parse(ClawAgentsInspect);
    const result = await withAgents(async (gateway): Promise<Inspected> => {
      const record = (await gateway.callService('agents.inspect', { group: flags.group, id: args.id })) as Inspected;
      return flags.transcript ? { ...record, transcript: (await readChildSource(gateway, flags.group, args.id)).messages } : record;
    });
    if (!this.jsonEnabled()) {
      const transcript = result.transcript === undefined ? [] : ['transcript (redacted):', result.transcript.length ? renderConversation(result.transcript.map((message, index) => ({ index: index + 1, message })), 'text', environmentSecrets()) : '(no transcript is stored: the child runs, or was interrupted)'];
      this.log([renderChildren([result]), ...(result.inputs.length ? [renderInputs(result.inputs)] : []), ...transcript].join('\n'));
    }
    return result;
  }
}
