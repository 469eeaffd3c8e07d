import { Flags } from '@oclif/core';
import type { Job } from '../../../plugins/claw-scheduler/index.js';
import { XdogCommand } from '../../base-command.js';
import { groupFlag, withGateway } from '../_lib/gateway.js';
import { jobNameArg, parseDuration, parseTime, renderJob } from '../_lib/schedule.js';

export default class ClawScheduleAdd extends XdogCommand {
  static override summary = 'Schedule a prompt: by cron expression, at a fixed interval, or once at a time';
  static override description =
    "The prompt runs as a system input (human input hooks do not see it; the group's tool policy applies) in the group's active session, or with --isolated in a fresh session that is never made active. A run missed while the gateway was down runs once if it is at most --grace late, else it is recorded as missed.";
  static override enableJsonFlag = true;
  static override args = { name: jobNameArg };
  static override flags = {
    group: groupFlag,
    prompt: Flags.string({ char: 'p', description: 'the prompt to send', required: true }),
    cron: Flags.string({ description: 'a cron expression, e.g. "0 9 * * 1-5"', exactlyOne: ['cron', 'every', 'at'] }),
    tz: Flags.string({ description: "the cron expression's IANA time zone (default: the group's timezone, else the system's)", dependsOn: ['cron'] }),
    every: Flags.string({ description: 'a fixed interval: 90s, 15m, 2h, 1d (at least 1m)', exactlyOne: ['cron', 'every', 'at'] }),
    at: Flags.string({ description: 'once, at an ISO 8601 time with offset, e.g. 2026-12-24T09:00:00Z', exactlyOne: ['cron', 'every', 'at'] }),
    isolated: Flags.boolean({ description: 'run each time in a fresh session instead of the active one' }),
    grace: Flags.string({ description: 'how late a run missed during downtime may still run once (default 1h)' }),
    paused: Flags.boolean({ description: 'add it paused' }),
  };
  static override examples = [
    '<%= config.bin %> claw schedule add standup --cron "0 9 * * 1-5" --tz Europe/Berlin --prompt "Summarise yesterday\'s commits"',
    '<%= config.bin %> claw schedule add inbox --every 15m --isolated --prompt "Check the inbox folder"',
    '<%= config.bin %> claw schedule add remind --at 2026-12-24T09:00:00Z --prompt "Remind me to call home"',
  ];

  async run(): Promise<Job> {
    const { args, flags } = await this.parse(ClawScheduleAdd);
    const params = {
      group: flags.group,
      name: args.name,
      prompt: flags.prompt,
      ...(flags.cron === undefined ? {} : { cron: flags.cron }),
      ...(flags.tz === undefined ? {} : { timezone: flags.tz }),
      ...(flags.every === undefined ? {} : { everySeconds: parseDuration(flags.every, '--every') }),
      ...(flags.at === undefined ? {} : { at: parseTime(flags.at, '--at') }),
      target: flags.isolated ? 'isolated' : 'active',
      ...(flags.grace === undefined ? {} : { graceSeconds: parseDuration(flags.grace, '--grace') }),
      ...(flags.paused ? { paused: true } : {}),
    };
    const job = await withGateway(async (gateway) => (await gateway.callService('schedule.add', params)) as Job);
    if (!this.jsonEnabled()) this.log(renderJob(job));
    return job;
  }
}
