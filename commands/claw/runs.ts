import { Flags } from '@oclif/core';
import { ErrorCodes, XdogError } from '../../core/errors.js';
import { LIMITS } from '../../core/limits.js';
import { DEFAULT_RUNS_PAGE, RUNS_CAPABILITY, type RunRecord } from '../../plugins/claw-runs/index.js';
import { XdogCommand } from '../base-command.js';
import { withGateway } from './_lib/gateway.js';
import { renderRunLog } from './_lib/runs.js';

export default class ClawRuns extends XdogCommand {
  static override summary = 'Show the run log, newest first: every run of every group, where its input came from, who ran it, when, and how it ended';
  static override description = 'Sources: prompt (a client), channel (a channel message), schedule (a scheduled job), system (another host input). With several workers, OWNER is the worker (host:pid) that ran it.';
  static override enableJsonFlag = true;
  static override flags = {
    group: Flags.string({ char: 'g', description: "only this group's runs (default: every group's)" }),
    limit: Flags.integer({ description: `rows per page (at most ${LIMITS.clawRunLogPage})`, min: 1, max: LIMITS.clawRunLogPage, default: DEFAULT_RUNS_PAGE }),
    before: Flags.integer({ description: 'only runs older than this run id (the next page)', min: 1 }),
  };
  static override examples = ['<%= config.bin %> claw runs', '<%= config.bin %> claw runs --group ops --limit 200 --json'];

  async run(): Promise<RunRecord[]> {
    const { flags } = await this.parse(ClawRuns);
    const { runs } = await withGateway(async (gateway) => {
      if (!gateway.hello.capabilities.includes(RUNS_CAPABILITY)) {
        throw new XdogError(ErrorCodes.UNSUPPORTED, 'the running gateway has no run log', { hint: 'restart it with this xdog version (xdog claw gateway stop, then xdog claw gateway start)' });
      }
      return (await gateway.callService('runs.list', { group: flags.group, limit: flags.limit, beforeId: flags.before })) as { runs: RunRecord[] };
    });
    if (!this.jsonEnabled()) {
      this.log(renderRunLog(runs));
      if (runs.length === flags.limit) this.log(`more: xdog claw runs${flags.group ? ` --group ${flags.group}` : ''} --before ${runs.at(-1)!.id}`);
    }
    return runs;
  }
}
