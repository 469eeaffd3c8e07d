import { Flags } from '@oclif/core';
import { XdogCommand } from '../base-command.js';
import { parseSince } from './_lib/args.js';
import { groupFlag, withGateway } from './_lib/gateway.js';
import { renderUsage } from './_lib/render.js';
import { USAGE_DIMENSIONS, type UsageDimension, type UsageTotals } from '../../plugins/sessions/types.js';

export default class ClawUsage extends XdogCommand {
  static override summary = 'Sum the model calls the gateway recorded, by model, group, session, goal, child, schedule job, MCP server or origin: tokens, cost (unknown without a price), time';
  static override enableJsonFlag = true;
  static override flags = {
    group: groupFlag,
    session: Flags.string({ description: 'only this session (an id from xdog claw sessions list)' }),
    since: Flags.string({ description: 'only calls at or after this time (ISO 8601, e.g. 2026-11-30 or 2026-11-30T12:00:00Z)' }),
    by: Flags.string({ description: 'sum by model (default), group, session, goal, child, schedule (job id), mcp (the server whose sampling called the model) or origin (prompt, schedule, goal, child, mcp)', options: [...USAGE_DIMENSIONS] }),
  };
  static override examples = ['<%= config.bin %> claw usage', '<%= config.bin %> claw usage --group main --since 2026-11-01 --json', '<%= config.bin %> claw usage --by goal', '<%= config.bin %> claw usage --by mcp'];

  async run(): Promise<UsageTotals[]> {
    const { flags } = await this.parse(ClawUsage);
    const since = parseSince(flags.since);
    const summary = await withGateway(async (gateway) => (await gateway.call('usage.summary', { group: flags.group, sessionId: flags.session, since, ...(flags.by ? { by: flags.by as UsageDimension } : {}) })) as UsageTotals[]);
    if (!this.jsonEnabled()) this.log(renderUsage(summary));
    return summary;
  }
}
