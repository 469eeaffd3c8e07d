import type { Job } from '../../../plugins/claw-scheduler/index.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';
import { jobNameArg, renderJob } from '../_lib/schedule.js';

export default class ClawScheduleRemove extends XdogCommand {
  static override summary = 'Remove a job and its run history (refused while it runs)';
  static override enableJsonFlag = true;
  static override args = { name: jobNameArg };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw schedule remove standup'];

  async run(): Promise<Job> {
    const { args, flags } = await this.parse(ClawScheduleRemove);
    const job = await withGateway(async (gateway) => (await gateway.callService('schedule.remove', { group: flags.group, name: args.name })) as Job);
    if (!this.jsonEnabled()) this.log(`removed: ${renderJob(job)}`);
    return job;
  }
}
