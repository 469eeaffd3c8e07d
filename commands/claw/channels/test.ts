import { Args, Flags } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../../core/errors.js';
import { XdogCommand } from '../../base-command.js';
import { withGateway } from '../_lib/gateway.js';

export default class ClawChannelsTest extends XdogCommand {
  static override summary = 'Send a test message through a running channel to a recipient';
  static override description = 'The message goes out the way replies do (chunked, not retried). Exit 1 when the send failed.';
  static override enableJsonFlag = true;
  static override args = { id: Args.string({ description: 'the channel id', required: true }) };
  static override flags = {
    to: Flags.string({ description: 'the recipient, in the channel\'s terms (a nick, a user id, a room)', required: true }),
    text: Flags.string({ description: 'the text to send', default: 'xdog channel test' }),
  };
  static override examples = ['<%= config.bin %> claw channels test team-irc --to alice'];

  async run(): Promise<{ sent: number; failed: number; problems: string[] }> {
    const { args, flags } = await this.parse(ClawChannelsTest);
    const result = await withGateway(async (gateway) => (await gateway.callService('channels.test', { id: args.id, to: flags.to, text: flags.text })) as { sent: number; failed: number; problems: string[] });
    if (result.failed > 0) {
      // The receiver could not be reached or refused it: the channel is up, its other end is not.
      throw new XdogError(ErrorCodes.UNAVAILABLE, `channel ${args.id}: ${result.failed} of ${result.sent + result.failed} part(s) failed to send: ${result.problems[0] ?? 'see the gateway log'}`, {
        hint: "check the channel's settings (where it sends) and that the receiving end is up; the gateway log has every failure",
      });
    }
    if (!this.jsonEnabled()) this.log(`sent ${result.sent} message(s) through ${args.id}`);
    return result;
  }
}
