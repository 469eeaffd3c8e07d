import type { Job } from '../../../plugins/claw-scheduler/index.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';
import { renderJobs } from '../_lib/schedule.js';

export default class ClawScheduleList extends XdogCommand {
  static override summary = "List a group's scheduled jobs with their next run";
  static override enableJsonFlag = true;
  static override flags = { group: groupFlag };
  static override examples = ['<%= config.bin %> claw schedule list', '<%= config.bin %> claw schedule list --json | jq ".[].nextRunAt"'];

  async run(): Promise<Job[]> {
    const { flags } = await this.parse(ClawScheduleList);
    const jobs = await withGateway(async (gateway) => (await gateway.callService('schedule.list', { group: flags.group })) as Job[]);
    if (!this.jsonEnabled()) this.log(renderJobs(jobs));
    return jobs;
  }
}
