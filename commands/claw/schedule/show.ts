import type { Job, JobRun } from '../../../plugins/claw-scheduler/index.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';
import { jobNameArg, renderJob, renderRuns } from '../_lib/schedule.js';

export default class ClawScheduleShow extends XdogCommand {
  static override summary = 'Show one job and its latest runs';
  static override enableJsonFlag = true;
  static override args = { name: jobNameArg };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw schedule show standup'];

  async run(): Promise<{ job: Job; runs: JobRun[] }> {
    const { args, flags } = await this.parse(ClawScheduleShow);
    const shown = await withGateway(async (gateway) => (await gateway.callService('schedule.show', { group: flags.group, name: args.name })) as { job: Job; runs: JobRun[] });
    if (!this.jsonEnabled()) this.log(`${renderJob(shown.job)}\n\n${renderRuns(shown.runs)}`);
    return shown;
  }
}
