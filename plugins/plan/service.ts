/**
 * The gateway's `plan.*` methods. They change the mode only (none starts a
 * turn), need an idle group, and act on the group's active session, whose
 * id a client may pass as `expectedSessionId` (STALE when it changed).
 * `plan.health` lists plans that cannot be read, for `xdog claw status`.
 */
import { ErrorCodes, LIMITS, XdogError, describeError, textWithin, z, type Clock } from '../../core/index.js';
import { gatewayMethod, type ControlKind, type GatewayHost, type GatewayService, type GroupRuntime } from '../claw-gateway/tokens.js';
import { activeSessionOf, loadPlan, savePlan } from './plan-store.js';
import { checkStop, executePlan, renderPlan, revisePlan, startPlan, type PlanState } from './state.js';

/** What the plan methods answer. */
export interface PlanView {
  group: string;
  sessionId: string;
  plan: PlanState | null;
  /** The plan as text; null without a plan. */
  text: string | null;
}

/** A plan that cannot be read (its group denies every tool call until it is stopped). */
export interface PlanProblem {
  group: string;
  sessionId: string;
  problem: string;
}

export const PlanNotifications = { changed: 'plan.changed' } as const;

const target = { group: z.string().optional(), expectedSessionId: z.string().optional() };
const revision = z.number().int().positive();

export function createPlanService(): GatewayService {
  let host: GatewayHost | undefined;
  const started = (): GatewayHost => {
    if (!host) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the plan service has not started', { hint: 'retry once the gateway is ready' });
    return host;
  };
  const view = (group: string, sessionId: string, plan: PlanState | null): PlanView => ({ group, sessionId, plan, text: plan ? renderPlan(plan) : null });

  /** Runs a change of the active session's plan as an idle-group control, saved before it is answered. */
  /** `kind`: planning holds tools to reading, so start and revise tighten; execute and stop loosen. */
  const change = async (
    params: { group?: string; expectedSessionId?: string },
    kind: ControlKind,
    next: (plan: PlanState | null, clock: Clock) => PlanState | null,
    options: { clearsCorrupt?: boolean } = {},
  ): Promise<PlanView> => {
    const gateway = started();
    const runtime: GroupRuntime = gateway.group(params.group);
    const expected = params.expectedSessionId ?? runtime.activeSessionId;
    const result = await runtime.control(expected, async () => {
      const sessionId = await activeSessionOf(gateway.store, runtime.name);
      let current: PlanState | null;
      try {
        current = await loadPlan(gateway.store, sessionId);
      } catch (error) {
        // Only stop may replace a plan that cannot be read: it is how the user clears it.
        if (!XdogError.is(error, ErrorCodes.STORE_CORRUPT) || !options.clearsCorrupt) throw error;
        await savePlan(gateway.store, sessionId, null);
        return view(runtime.name, sessionId, null);
      }
      const plan = next(current, gateway.clock);
      await savePlan(gateway.store, sessionId, plan);
      return view(runtime.name, sessionId, plan);
    }, kind);
    gateway.publish(runtime.name, result.sessionId, PlanNotifications.changed, result);
    return result;
  };
  return {
    name: 'plan',
    capabilities: ['plan:1'],
    methods: {
      'plan.show': gatewayMethod(z.object({ group: z.string().optional() }).strict(), async (params) => {
        const gateway = started();
        const runtime = gateway.group(params.group);
        const sessionId = await activeSessionOf(gateway.store, runtime.name);
        return view(runtime.name, sessionId, await loadPlan(gateway.store, sessionId));
      }),
      'plan.start': gatewayMethod(
        z.object({ ...target, objective: textWithin(LIMITS.planObjectiveBytes, { trim: true, nonEmpty: true }) }).strict(),
        (params) => change(params, 'tighten', (plan, clock) => startPlan(plan, params.objective, clock.now())),
      ),
      'plan.execute': gatewayMethod(z.object({ ...target, revision }).strict(), (params) => change(params, 'loosen', (plan, clock) => executePlan(plan, params.revision, clock.now()))),
      'plan.revise': gatewayMethod(z.object({ ...target, revision: revision.optional() }).strict(), (params) => change(params, 'tighten', (plan, clock) => revisePlan(plan, params.revision, clock.now()))),
      'plan.stop': gatewayMethod(z.object({ ...target, revision: revision.optional() }).strict(), (params) =>
        change(
          params,
          'loosen',
          (plan) => {
            checkStop(plan, params.revision);
            return null;
          },
          { clearsCorrupt: true },
        ),
      ),
      'plan.health': gatewayMethod(z.object({}).strict(), async (): Promise<PlanProblem[]> => {
        const gateway = started();
        const problems: PlanProblem[] = [];
        for (const runtime of gateway.groups.values()) {
          const sessionId = runtime.activeSessionId;
          if (!sessionId) continue;
          try {
            await loadPlan(gateway.store, sessionId);
          } catch (error) {
            problems.push({ group: runtime.name, sessionId, problem: describeError(error) });
          }
        }
        return problems;
      }),
    },
    start(gatewayHost) {
      host = gatewayHost;
      // An active plan (or one that cannot be read) keeps its session: no automatic reset archives it.
      gatewayHost.hooks.resetSuppressed.tapPromise('plan', async (reset) => {
        if (!reset.sessionId) return undefined;
        try {
          const plan = await loadPlan(gatewayHost.store, reset.sessionId);
          return plan ? `a plan is ${plan.status} in session ${reset.sessionId}` : undefined;
        } catch (error) {
          return `the plan state of session ${reset.sessionId} cannot be read (${describeError(error)})`;
        }
      });
    },
    stop() {
      host = undefined;
    },
  };
}
