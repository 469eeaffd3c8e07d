/**
 * Tool approvals, the part the SDK owns: the `approvals` config section (the
 * host's policy, judged by the approvals plugin) and the `ApprovalBroker`
 * contract through which an agent asks a person about a call a
 * `beforeToolCall` tap answered with `{ask: true, reason}` (docs/approvals.md).
 */
import { z } from 'zod';
import { LIMITS } from './limits.js';
import type { ToolCall } from './agent/messages.js';

/** `never`: nobody is asked (an ask is a denial); `mutating`: calls other than the built-in read tools are asked; `always`: every call is asked. */
export const ApprovalModeSchema = z.enum(['never', 'mutating', 'always']);
export type ApprovalMode = z.infer<typeof ApprovalModeSchema>;

const ToolPattern = z.string().min(1).max(200);
const ArgPatterns = z.record(z.string().min(1), z.string().min(1).max(1000));

/** One rule: exactly one of allow / deny / ask names the tool (a glob); `command` (bash only) and `args` narrow it. */
export const ApprovalRuleSchema = z
  .object({
    allow: ToolPattern.optional(),
    deny: ToolPattern.optional(),
    ask: ToolPattern.optional(),
    /** For `bash`: the words a command starts with (each a glob), matched against every command the shell line runs. */
    command: z.string().min(1).max(1000).optional(),
    /** Argument name → glob its string value must match (`*` within a path segment, `**` across). */
    args: ArgPatterns.optional(),
    /** Shown to the model (deny) or the person (ask). */
    reason: z.string().min(1).max(500).optional(),
  })
  .strict()
  .superRefine((rule, ctx) => {
    const actions = (['allow', 'deny', 'ask'] as const).filter((key) => rule[key] !== undefined);
    if (actions.length !== 1) ctx.addIssue({ code: 'custom', message: 'a rule has exactly one of allow, deny or ask (the tool name it matches)' });
    const tool = rule.allow ?? rule.deny ?? rule.ask;
    if (rule.command !== undefined && tool !== 'bash') ctx.addIssue({ code: 'custom', path: ['command'], message: '"command" is for bash rules only; use "args" for other tools' });
    if (rule.args !== undefined && tool === 'bash') ctx.addIssue({ code: 'custom', path: ['args'], message: 'bash rules match commands with "command" (the shell line is parsed), never a raw "args" pattern' });
  });
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;

/** The `approvals` section (top level for `xdog agent chat`, per claw group). */
export const ApprovalsConfigSchema = z
  .object({
    mode: ApprovalModeSchema.optional(),
    /** Ordered: for each call (each command of a bash line) the first matching rule decides. */
    rules: z.array(ApprovalRuleSchema).max(LIMITS.approvalRules).optional(),
    /** Minutes a pending approval waits before it is denied ("no answer in N minutes"); default 60. */
    expire_minutes: z.number().int().min(1).max(LIMITS.approvalExpireMinutesMax).optional(),
  })
  .strict();
export type ApprovalsConfig = z.infer<typeof ApprovalsConfigSchema>;

/** What a broker is asked about. */
export interface ApprovalRequest {
  toolCall: ToolCall;
  /** The validated arguments the call would run with. */
  args: Record<string, unknown>;
  /** Why the policy asks (shown to the person). */
  reason: string;
  /** The tool's JSON-schema parameters, for reviewing and editing. */
  parameters?: unknown;
  /** A copy of the tool context the call would run with (a host finds its session there). */
  toolCtx: Record<string, unknown>;
}

/** A person's answer. `edit` carries the arguments the call runs with instead (validated against the tool schema). */
export type ApprovalAnswer =
  | { action: 'approve' }
  | { action: 'deny'; reason: string }
  | { action: 'edit'; args: Record<string, unknown> };

/**
 * Asks a person. `request` resolves with the answer; it must settle (or
 * reject) when `signal` aborts. A rejection is a denial naming the failure.
 */
export interface ApprovalBroker {
  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
}

export const ApprovalAnswerSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('approve') }).strict(),
  z.object({ action: z.literal('deny'), reason: z.string().min(1).max(LIMITS.approvalReasonBytes) }).strict(),
  z.object({ action: z.literal('edit'), args: z.record(z.string(), z.unknown()) }).strict(),
]);
