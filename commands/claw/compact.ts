import { Flags } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS, utf8Bytes } from '../../core/limits.js';
import type { CompactionReceipt } from '../../plugins/claw-gateway/protocol.js';
import { XdogCommand } from '../base-command.js';
import { expectFlag, expectedSession, groupFlag, withGateway } from './_lib/gateway.js';
import { renderCompaction } from './_lib/render.js';

export default class ClawCompact extends XdogCommand {
  static override summary = "Compact the group's active session: older turns become a summary, the full history stays on a recovery branch";
  static override description =
    'Needs an idle group. When the group has a memory_write tool, the agent first gets one silent turn to save durable facts. ' +
    'The receipt names the recovery branch ("Before compaction #N"): xdog claw sessions branch ID restores the complete history. ' +
    'A failed or empty summary changes nothing (exit 1); a history too small to compact is left as it is, without a model call. ' +
    '--cancel cancels a compaction another client started (never a running turn).';
  static override enableJsonFlag = true;
  static override flags = {
    group: groupFlag,
    expect: expectFlag,
    cancel: Flags.boolean({ description: 'cancel the running compaction of the group instead (nothing is written; a running turn is left alone)', exclusive: ['focus'] }),
    focus: Flags.string({ description: `what the summary should keep in view (at most ${LIMITS.compactionInstructionsBytes / 1024} KiB)` }),
    timeout: Flags.integer({
      description: 'seconds to wait for the receipt (the summary is a model call); giving up does not stop the compaction: check xdog claw sessions tree',
      default: 600,
      min: 1,
      max: 86_400,
    }),
  };
  static override examples = ['<%= config.bin %> claw compact', '<%= config.bin %> claw compact --focus "the API migration and its open bugs"', '<%= config.bin %> claw compact --cancel'];

  async run(): Promise<CompactionReceipt | { cancelled: boolean }> {
    const { flags } = await this.parse(ClawCompact);
    if (flags.cancel) return this.#cancel(flags.group);
    if (flags.focus !== undefined && utf8Bytes(flags.focus) > LIMITS.compactionInstructionsBytes) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `--focus is ${utf8Bytes(flags.focus)} bytes, over the limit of ${LIMITS.compactionInstructionsBytes}`, { hint: 'give a shorter focus' });
    }
    let cancelling = false;
    let cancel = (): void => undefined;
    // The first Ctrl+C asks the gateway to cancel the compaction (nothing is written then); a second one stops waiting.
    const onSigint = (): void => (cancelling ? process.exit(130) : ((cancelling = true), cancel()));
    process.on('SIGINT', onSigint);
    const receipt = await withGateway(async (gateway) => {
      if (!gateway.hello.capabilities.includes('compact:1')) {
        throw new XdogError(ErrorCodes.UNSUPPORTED, 'the running gateway does not support compaction', { hint: 'restart it with this version of xdog (xdog claw gateway stop, then start)' });
      }
      const expectedSessionId = await expectedSession(gateway, flags.group, flags.expect);
      cancel = () => {
        process.stderr.write('cancelling the compaction…\n');
        // An older gateway has no compact.cancel; its abort also stops a compaction.
        const method = gateway.hello.capabilities.includes('compact-cancel:1') ? 'compact.cancel' : 'abort';
        gateway.call(method, { group: flags.group }).catch(() => undefined);
      };
      return (await gateway.call('session.compact', { group: flags.group, expectedSessionId, ...(flags.focus === undefined ? {} : { focus: flags.focus }) }, { timeoutMs: flags.timeout * 1000 })) as CompactionReceipt;
    }).finally(() => process.removeListener('SIGINT', onSigint));
    if (!this.jsonEnabled()) this.log(renderCompaction(receipt));
    return receipt;
  }

  async #cancel(group: string | undefined): Promise<{ cancelled: boolean }> {
    const answer = await withGateway(async (gateway) => {
      if (!gateway.hello.capabilities.includes('compact-cancel:1')) {
        throw new XdogError(ErrorCodes.UNSUPPORTED, 'the running gateway cannot cancel a compaction on its own', { hint: 'restart it with this version of xdog (xdog claw gateway stop, then start)' });
      }
      return (await gateway.call('compact.cancel', { group })) as { cancelled: boolean };
    });
    if (!this.jsonEnabled()) this.log(answer.cancelled ? 'the compaction was cancelled; nothing was written' : 'no compaction is running');
    return answer;
  }
}
