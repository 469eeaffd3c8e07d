import { Args, Flags } from '@oclif/core';
import { ErrorCodes, XdogError, type ErrorCode } from '../../core/errors.js';
import { processOutput, terminalOutput } from '../agent/_lib/render.js';
import { XdogCommand } from '../base-command.js';
import { readText } from './_lib/args.js';
import { groupFlag, withGateway } from './_lib/gateway.js';
import { sendPrompt } from './_lib/send.js';
import { Attachments } from '../../plugins/claw-tui/attachments.js';

export default class ClawSend extends XdogCommand {
  static override summary = "Send a prompt to a group's active session and stream the reply";
  static override description = `The answer streams to stdout and one line per tool call to stderr. If the group is busy the prompt waits in its queue and its run is streamed when it comes.
With --json every event is one JSON line on stdout: {"type":"receipt"}, the agent events, then {"type":"run_end"}.
Ctrl+C aborts the run (or takes a queued prompt out of the queue); a second Ctrl+C stops waiting. If the connection drops before the gateway answers, the prompt is not sent again: check with xdog claw sessions show.
Exit codes: 0 the run completed, 1 it failed, was aborted or interrupted (its gateway or worker stopped), or the gateway is unreachable, 2 usage error.`;
  static override enableJsonFlag = true;
  static override args = { text: Args.string({ description: 'the prompt; "-" reads it from stdin', required: true }) };
  static override flags = {
    group: groupFlag,
    session: Flags.string({ description: 'send only if this session is still the active one (refused with STALE otherwise)' }),
    image: Flags.string({ description: 'attach a PNG, JPEG or WebP image (up to 4; 10 MiB each; big ones go as chunked uploads)', multiple: true }),
  };
  static override examples = [
    '<%= config.bin %> claw send "What changed in the repo today?"',
    'git diff | <%= config.bin %> claw send --group review -',
    '<%= config.bin %> claw send --json "hi" | jq -c .type',
    '<%= config.bin %> claw send --image shot.png "What is wrong in this screenshot?"',
  ];

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ClawSend);
    const text = await readText(args.text);
    // The TUI's checks: the type from the bytes, 4 images, 10 MiB each, 100 megapixels.
    const attachments = new Attachments();
    for (const file of flags.image ?? []) attachments.add(file);
    const images = attachments.take();
    const interrupt = new AbortController();
    // The first Ctrl+C asks the gateway to abort (or unqueue); a second one stops waiting for it.
    const onSigint = (): void => (interrupt.signal.aborted ? process.exit(130) : interrupt.abort());
    process.on('SIGINT', onSigint);
    try {
      // Model and tool text cannot drive the terminal; --json stays byte-exact.
      const output = this.jsonEnabled() ? processOutput : terminalOutput;
      const result = await withGateway((gateway) => sendPrompt(gateway, { group: flags.group, sessionId: flags.session, text, images, json: this.jsonEnabled(), output, interrupt: interrupt.signal }));
      if (result.status === 'duplicate') processOutput.stderr('the gateway had already received this prompt; it was not run again\n');
      else if (result.status === 'aborted') throw new XdogError(ErrorCodes.ABORTED, 'the run was aborted');
      else if (result.status === 'interrupted' || result.status === 'dropped') {
        // Its gateway or worker stopped under it (or before it ran): what it committed stays, nothing runs it again.
        throw new XdogError(ErrorCodes.UNAVAILABLE, result.errorMessage ?? `the run was ${result.status}`, { hint: 'it is not run again; see what it did with xdog claw sessions show' });
      } else if (result.status !== 'completed') {
        const code = (result.errorCode as ErrorCode | undefined) ?? ErrorCodes.MODEL_FAILED;
        throw new XdogError(code, result.errorMessage ?? `the run ended with status ${result.status}`, result.errorHint ? { hint: result.errorHint } : {});
      }
    } finally {
      process.removeListener('SIGINT', onSigint);
    }
  }
}
