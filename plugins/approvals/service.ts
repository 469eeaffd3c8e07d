/**
 * The gateway's approvals: the `approvals.*` methods (list, show, approve,
 * deny, edit), the broker each group with an `approvals` section gets, and
 * the resume after a restart. Any client, through any worker, answers by
 * compare-and-set in the store; the group's owner, woken by the answer (in
 * process or by NOTIFY) and reading the row, runs the call. A group whose active session stopped while a call waited (gateway
 * killed or stopped) gets a resumed run first in its queue: it restores the
 * stored transcript, asks the same approval row again (never the model) and
 * continues with the next model call once the call ran.
 */
import { ApprovalBrokerToken, ErrorCodes, LIMITS, ToolContribution, XdogError, checkToolArguments, describeError, z, type ApprovalAnswer } from '../../core/index.js';
import { CLAW_SESSION_TOOL_CTX, followGroups, gatewayMethod, type GatewayHost, type GatewayService, type GroupRuntime } from '../claw-gateway/tokens.js';
import { isLocalReadOnlyTool } from '../tools/index.js';
import { forgetLearnedRule, getApproval, listApprovals, listLearnedRules, waitingApprovals, type ApprovalRecord } from './approval-store.js';
import { answerStored } from './channel-reply.js';
import { approvalWaitsOf } from './approval-waits.js';
import { ClawApprovalBroker } from './claw-broker.js';
import { LearnedRulesToken } from './learned-rules.js';
import { alwaysAllowRules, type LearnedRule } from './policy.js';

const DEFAULT_EXPIRE_MINUTES = 60;
const By = z.string().min(1).max(200).optional();
const Id = z.number().int().positive();

/** Who answered, as a client names itself (the CLI sends cli:$USER). */
function byOf(by: string | undefined): string {
  return by ?? 'a client';
}

export function createApprovalsService(): GatewayService {
  let host: GatewayHost | undefined;
  const started = (): GatewayHost => {
    if (!host) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the approvals service has not started', { hint: 'retry once the gateway is ready' });
    return host;
  };

  const answer = (id: number, given: ApprovalAnswer, by: string | undefined, learned?: readonly LearnedRule[]): Promise<ApprovalRecord> => answerStored(started(), id, given, byOf(by), learned);

  /** The rules "always allow" adds for approval `id`; refused (nothing answered) when the policy would not let them stand. */
  const alwaysRules = async (id: number): Promise<LearnedRule[]> => {
    const gateway = started();
    const record = await getApproval(gateway.store, id);
    const policy = gateway.kernel.config.claw?.groups?.[record.group]?.approvals;
    if (!policy) throw new XdogError(ErrorCodes.INVALID_STATE, `group ${record.group} has no approvals section any more`, { hint: 'approve it once instead' });
    const tool = gateway.kernel.getAll(ToolContribution).find((candidate) => candidate.name === record.toolName);
    const outcome = await alwaysAllowRules(policy, { tool: record.toolName, args: record.args, readOnly: tool !== undefined && isLocalReadOnlyTool(tool) });
    if ('refused' in outcome) throw new XdogError(ErrorCodes.INVALID_STATE, `approval ${id} cannot be always allowed: ${outcome.refused}`, { hint: 'nothing was answered' });
    const kept = (await listLearnedRules(gateway.store, record.group, LIMITS.approvalLearnedRules + 1)).length;
    if (kept + outcome.rules.length > LIMITS.approvalLearnedRules) {
      throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `group ${record.group} already keeps ${kept} always-allow rules (at most ${LIMITS.approvalLearnedRules})`, { hint: 'nothing was answered; remove some with `xdog claw approvals forget RULE`' });
    }
    return outcome.rules;
  };

  /** Edited arguments must fit the tool's schema before they are stored (the owner checks them again before the call runs). */
  const checkEdit = async (id: number, args: Record<string, unknown>): Promise<void> => {
    const gateway = started();
    const record = await getApproval(gateway.store, id);
    const tool = gateway.kernel.getAll(ToolContribution).find((candidate) => candidate.name === record.toolName);
    if (!tool) return;
    const checked = checkToolArguments(tool, structuredClone(args));
    if (!checked.ok) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the edited arguments do not fit tool "${record.toolName}": ${checked.error}`, { hint: 'nothing changed; give arguments that match its schema' });
  };

  const ready = async (gateway: GatewayHost, group: GroupRuntime): Promise<void> => {
    const policy = gateway.kernel.config.claw?.groups?.[group.name]?.approvals;
    if (!policy) return;
    const broker = new ClawApprovalBroker({
      store: gateway.store,
      group: group.name,
      clock: gateway.clock,
      expireMinutes: policy.expire_minutes ?? DEFAULT_EXPIRE_MINUTES,
      sessionKey: CLAW_SESSION_TOOL_CTX,
      publish: (sessionId, method, params) => gateway.publish(group.name, sessionId, method, params),
      waits: approvalWaitsOf(gateway),
      ending: () => group.ending,
    });
    const container = group.kernel.container;
    if (container.isBound(ApprovalBrokerToken)) await container.unbind(ApprovalBrokerToken);
    container.bind(ApprovalBrokerToken).toConstantValue(broker);
    // Read from the store each time the config would ask (rare): a rule added or forgotten through any worker counts at once.
    if (container.isBound(LearnedRulesToken)) await container.unbind(LearnedRulesToken);
    container.bind(LearnedRulesToken).toConstantValue(() => listLearnedRules(gateway.store, group.name, LIMITS.approvalLearnedRules));
    const sessionId = group.activeSessionId;
    if (!sessionId) return;
    const waiting = await waitingApprovals(gateway.store, sessionId);
    if (waiting.length === 0) return;
    gateway.log(`group ${group.name}: session ${sessionId} stopped while approval ${waiting.map((row) => row.id).join(', ')} waited; its run resumes from the stored transcript`);
    group.resume();
  };

  return {
    name: 'approvals',
    capabilities: ['approvals:1'],
    methods: {
      'approvals.list': gatewayMethod(z.object({ group: z.string().optional(), all: z.boolean().optional() }).strict(), async (params) => {
        const gateway = started();
        const group = params.group === undefined ? undefined : gateway.group(params.group).name;
        return { approvals: await listApprovals(gateway.store, { ...(group ? { group } : {}), pendingOnly: params.all !== true, limit: LIMITS.approvalsListed }) };
      }),
      'approvals.show': gatewayMethod(z.object({ id: Id }).strict(), async (params) => ({ approval: await getApproval(started().store, params.id) })),
      'approvals.approve': gatewayMethod(z.object({ id: Id, by: By, always: z.boolean().optional() }).strict(), async (params) => {
        const learned = params.always ? await alwaysRules(params.id) : undefined;
        const approval = await answer(params.id, { action: 'approve' }, params.by, learned);
        return { approval, ...(learned ? { rules: (await listLearnedRules(started().store, approval.group, LIMITS.approvalLearnedRules)).filter((rule) => rule.approvalId === approval.id) } : {}) };
      }),
      'approvals.rules': gatewayMethod(z.object({ group: z.string().optional() }).strict(), async (params) => {
        const gateway = started();
        return { rules: await listLearnedRules(gateway.store, gateway.group(params.group).name, LIMITS.approvalLearnedRules) };
      }),
      'approvals.forget': gatewayMethod(z.object({ rule: Id }).strict(), async (params) => ({ rule: await forgetLearnedRule(started().store, params.rule) })),
      'approvals.deny': gatewayMethod(z.object({ id: Id, reason: z.string().min(1).max(LIMITS.approvalReasonBytes), by: By }).strict(), async (params) => ({
        approval: await answer(params.id, { action: 'deny', reason: params.reason }, params.by),
      })),
      'approvals.edit': gatewayMethod(z.object({ id: Id, args: z.record(z.string(), z.unknown()), by: By }).strict(), async (params) => {
        await checkEdit(params.id, params.args);
        return { approval: await answer(params.id, { action: 'edit', args: params.args }, params.by) };
      }),
    },
    async start(gatewayHost) {
      host = gatewayHost;
      // Listening for answers from other workers starts with the service, before any run waits.
      approvalWaitsOf(gatewayHost);
      await followGroups(gatewayHost, 'approvals', {
        ready: (group) =>
          ready(gatewayHost, group).catch((error: unknown) => gatewayHost.log(`group ${group.name}: approvals could not be set up: ${describeError(error)}`)),
      });
    },
    stop() {
      host = undefined;
    },
  };
}
