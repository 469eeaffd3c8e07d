import type { Job } from '../../../plugins/claw-scheduler/index.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';
import { jobNameArg, renderJob } from '../_lib/schedule.js';

export default class ClawSchedulePause extends XdogCommand {
  static override summary = 'Pause a job: it does not run until resumed (occurrences while paused are not caught up)';
  static override enableJsonFlag = true;
  static override args = { name: jobNameArg };
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw schedule pause standup'];

  async run(): Promise<Job> {
    const { args, flags } = await this.parse(ClawSchedulePause);
    const job = await withGateway(async (gateway) => (await gateway.callService('schedule.pause', { group: flags.group, name: args.name })) as Job);
    if (!this.jsonEnabled()) this.log(`paused: ${renderJob(job)}`);
    return job;
  }
}
