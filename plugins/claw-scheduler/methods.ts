/** The `schedule.*` protocol methods' params (validated by the gateway before a handler runs). */
import { ClawGroupNameSchema, TimeZoneSchema, textWithin, z } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';

const Group = ClawGroupNameSchema.optional().describe('the group; default: claw.default_group');
export const JobNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][\w.-]*$/, 'must be letters, digits, ".", "_" or "-", starting with a letter or digit')
  .max(LIMITS.scheduleJobNameChars);
const Name = JobNameSchema;
const Prompt = textWithin(LIMITS.schedulePromptBytes, { nonEmpty: true });

export const ScheduleParams = {
  'schedule.add': z
    .object({
      group: Group,
      name: Name,
      prompt: Prompt,
      /** A cron expression (5 fields, or 6 with seconds first), in `timezone`. */
      cron: textWithin(256, { nonEmpty: true }).optional(),
      /** The cron expression's zone; default: the group's `timezone`, else the system's. */
      timezone: TimeZoneSchema.optional(),
      /** A fixed interval in seconds, counted from when the job was added. */
      everySeconds: z.number().int().positive().optional(),
      /** A one-shot at this time (epoch ms). */
      at: z.number().int().positive().optional(),
      /** Where it runs: the group's active session, or a fresh session per run that is never made active. */
      target: z.enum(['active', 'isolated']).optional(),
      /** How late (seconds) an occurrence missed while the gateway was down may still run once. */
      graceSeconds: z.number().int().nonnegative().max(LIMITS.scheduleGraceSecondsMax).optional(),
      paused: z.boolean().optional(),
    })
    .strict()
    .refine((params) => [params.cron, params.everySeconds, params.at].filter((value) => value !== undefined).length === 1, 'give exactly one of cron, everySeconds or at')
    .refine((params) => params.timezone === undefined || params.cron !== undefined, 'timezone applies to a cron job only'),
  'schedule.list': z.object({ group: Group }).strict(),
  'schedule.show': z.object({ group: Group, name: Name }).strict(),
  'schedule.pause': z.object({ group: Group, name: Name }).strict(),
  'schedule.resume': z.object({ group: Group, name: Name }).strict(),
  'schedule.remove': z.object({ group: Group, name: Name }).strict(),
  'schedule.run_now': z.object({ group: Group, name: Name }).strict(),
  'schedule.history': z
    .object({ group: Group, name: Name.optional(), limit: z.number().int().positive().max(LIMITS.scheduleHistoryPage).optional(), beforeId: z.number().int().positive().optional() })
    .strict(),
} as const;

export type ScheduleMethod = keyof typeof ScheduleParams;
export type ScheduleParamsOf<M extends ScheduleMethod> = z.infer<(typeof ScheduleParams)[M]>;
