import type { JobRun } from '../../../plugins/claw-scheduler/index.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';
import { jobNameArg } from '../_lib/schedule.js';

export default class ClawScheduleRunNow extends XdogCommand {
  static override summary = 'Run a job now, once, without changing its schedule';
  static override description = 'The run waits its turn behind the group\'s running turn and earlier scheduled runs; follow it with `xdog claw schedule history NAME`. Refused while the job already has a run in progress.';
  static override enableJsonFlag = true;
  static override args = { name: jobNameArg };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw schedule run-now standup'];

  async run(): Promise<JobRun> {
    const { args, flags } = await this.parse(ClawScheduleRunNow);
    const run = await withGateway(async (gateway) => (await gateway.callService('schedule.run_now', { group: flags.group, name: args.name })) as JobRun);
    if (!this.jsonEnabled()) this.log(`run ${run.id} of job ${args.name} is queued`);
    return run;
  }
}
