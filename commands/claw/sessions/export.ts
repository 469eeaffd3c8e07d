import { Args, Flags } from '@oclif/core';
import { resolveConfigPath } from '../../../core/index.js';
import { transcriptChunks } from '../../../plugins/claw-gateway/chunked-client.js';
import type { GroupStatus } from '../../../plugins/claw-gateway/protocol.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';
import { exportTranscript, writeToStream, type ExportResult } from '../_lib/transcript-export.js';

export default class ClawSessionsExport extends XdogCommand {
  static override summary = "Write a session's entries as JSONL, to a new file or to stdout";
  static override description = `The transcript is read in bounded chunks and checked against the SHA-256 the gateway computes; the file is written privately (0600) and published only once complete.
An existing file is never overwritten and the directory must exist. With --json (and --output) the result is a JSON summary.`;
  static override enableJsonFlag = true;
  static override args = { session: Args.string({ description: 'the session id (xdog claw sessions list)', required: true }) };
  static override flags = { group: groupFlag, output: Flags.string({ char: 'o', description: "the file to create (relative: in the group's workspace; default: stdout)" }) };
  static override examples = [
    '<%= config.bin %> claw sessions export 0b6f3c1e-5d1a-4c59-9d59-0c7b1a2e4f10 --output session.jsonl',
    '<%= config.bin %> claw sessions export 0b6f3c1e-5d1a-4c59-9d59-0c7b1a2e4f10 | jq -c .kind',
  ];

  async run(): Promise<ExportResult | undefined> {
    const { args, flags } = await this.parse(ClawSessionsExport);
    const result = await withGateway(async (gateway) =>
      exportTranscript(
        transcriptChunks(gateway.callService, flags.group, args.session),
        // A relative path names a file of the group's workspace, as every path a client gives does.
        flags.output === undefined ? undefined : resolveConfigPath(flags.output, ((await gateway.call('group.status', { group: flags.group })) as GroupStatus).workspace),
        (bytes) => writeToStream(process.stdout, bytes),
      ),
    );
    if (flags.output !== undefined && !this.jsonEnabled()) this.log(`wrote ${result.bytes} bytes to ${result.output} (sha256 ${result.sha256})`);
    // To stdout the transcript itself is the output; --json adds nothing after it.
    return flags.output === undefined ? undefined : result;
  }
}
