/** The `current_time` tool: the date and time now, in the local or a named time zone. */
import { z } from 'zod';
import type { AgentTool, Clock } from '../../core/index.js';
import { errorResult, textResult } from './results.js';
import { markReadOnly } from './read-only.js';

const TimeArgs = z.object({
  timezone: z.string().optional().describe('IANA time zone such as "Europe/Paris" (default: the local zone).'),
});

export function createCurrentTimeTool(options: { clock?: Clock } = {}): AgentTool<z.infer<typeof TimeArgs>> {
  return markReadOnly({
    name: 'current_time',
    description: 'Get the current date, time and weekday. Use it whenever the answer depends on today\'s date or the time.',
    parameters: TimeArgs,
    async execute(args) {
      const now = new Date(options.clock?.now() ?? Date.now());
      const timeZone = args.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
      let local: string;
      try {
        local = new Intl.DateTimeFormat('en-US', { timeZone, dateStyle: 'full', timeStyle: 'long' }).format(now);
      } catch {
        return errorResult(`unknown time zone "${args.timezone}"; use an IANA name such as Europe/Paris`);
      }
      return textResult(`${local} (${timeZone}); ISO ${now.toISOString()}`, { iso: now.toISOString(), timeZone });
    },
  });
}
