import type { Job } from '../../../plugins/claw-scheduler/index.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';
import { jobNameArg, renderJob } from '../_lib/schedule.js';

export default class ClawScheduleResume extends XdogCommand {
  static override summary = 'Resume a paused job from now on';
  static override enableJsonFlag = true;
  static override args = { name: jobNameArg };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw schedule resume standup'];

  async run(): Promise<Job> {
    const { args, flags } = await this.parse(ClawScheduleResume);
    const job = await withGateway(async (gateway) => (await gateway.callService('schedule.resume', { group: flags.group, name: args.name })) as Job);
    if (!this.jsonEnabled()) this.log(`resumed: ${renderJob(job)}`);
    return job;
  }
}
