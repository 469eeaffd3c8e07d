import { Args, Flags } from '@oclif/core';
import { LIMITS } from '../../../core/limits.js';
import type { Job, JobRun } from '../../../plugins/claw-scheduler/index.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';
import { renderRuns } from '../_lib/schedule.js';

export default class ClawScheduleHistory extends XdogCommand {
  static override summary = "Show run history, newest first: status, error, duration and tokens of each run";
  static override description = 'Statuses: completed, error, aborted, interrupted (the gateway stopped), skipped (the previous run was still going), missed (past its grace after downtime), queued, running.';
  static override enableJsonFlag = true;
  static override args = { name: Args.string({ description: 'only this job' }) };
  static override flags = {
    group: groupFlag,
    limit: Flags.integer({ description: `rows per page (at most ${LIMITS.scheduleHistoryPage})`, min: 1, max: LIMITS.scheduleHistoryPage, default: 20 }),
    before: Flags.integer({ description: 'only runs older than this run id (the next page)', min: 1 }),
  };
  static override examples = ['<%= config.bin %> claw schedule history', '<%= config.bin %> claw schedule history standup --limit 50'];

  async run(): Promise<JobRun[]> {
    const { args, flags } = await this.parse(ClawScheduleHistory);
    const { runs, jobs } = await withGateway(async (gateway) => ({
      runs: (await gateway.callService('schedule.history', { group: flags.group, name: args.name, limit: flags.limit, beforeId: flags.before })) as JobRun[],
      jobs: args.name === undefined ? ((await gateway.callService('schedule.list', { group: flags.group })) as Job[]) : [],
    }));
    if (!this.jsonEnabled()) this.log(renderRuns(runs, args.name === undefined ? new Map(jobs.map((job) => [job.id, job.name])) : undefined));
    return runs;
  }
}
