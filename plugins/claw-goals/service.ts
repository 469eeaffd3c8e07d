/**
 * The goals service (capability `goals:1`): the `goal.*` methods, the
 * `goal.changed` notification, the budget check on the `spendCheck` hook,
 * and the loop that keeps an active goal going. It follows the groups this
 * gateway serves (several workers: each follows its own), and when one of
 * them is idle with an active goal it submits one *system* input, "continue
 * toward the goal": at most once per idle period (claimed in the store, so
 * two workers never both submit), never while a plan awaits approval, never
 * past the goal's budget or deadline.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCodes, XdogError, describeError, z, type Agent, type SpendRefusal, type SpendRequest } from '../../core/index.js';
import { followGroups, gatewayMethod, spendRefusal, tellGroup, type GatewayHost, type GatewayService, type GroupRuntime } from '../claw-gateway/tokens.js';
import { planInEffect } from '../plan/index.js';
import { groupBudgetRefusal, goalBudgetRefusal, goalSpent } from './budgets.js';
import { GoalStore, type Goal, type GoalStatus } from './goal-store.js';
import { GOAL_UPDATE_TOOL } from './tool.js';

export const GOALS_CAPABILITY = 'goals:1';
export const GoalNotifications = { changed: 'goal.changed' } as const;
/** The origin of a goal's system inputs (and of their ledger rows). */
export const GOAL_ORIGIN = 'goal';

/** What `goal.get` answers and `goal.changed` carries. */
export interface GoalView {
  group: string;
  goal: (Goal & { spent: { tokens: number; cost: number; calls: number } }) | null;
}

/** The continuation a goal submits when its group is idle. */
export function continuationText(goal: Goal): string {
  return [
    `[system: goal] Continue toward the goal: ${goal.text}`,
    ...(goal.note ? [`Your last progress note: ${goal.note}`] : []),
    'Work on it now. Record progress with goal_update { note }; when the goal is met, call goal_update with done: true and say DONE.',
  ].join('\n');
}

const Group = z.string().min(1).optional();
const Budgets = { budgetTokens: z.number().int().positive().optional(), budgetCost: z.number().finite().positive().optional() };

/** A notice repeats for the same budget at most this often (a schedule firing every few seconds must not flood the clients). */
const NOTICE_REPEAT_MS = 10 * 60_000;

export function createGoalService(): GatewayService {
  let host: GatewayHost | undefined;
  let goals: GoalStore | undefined;
  let stopped = false;
  const followed = new Set<string>();
  const followedAgents = new WeakSet<Agent>();
  const noticed = new Map<string, number>();
  // This owner's periods start with its own tag: a restart (or another worker taking the group) opens a new idle period.
  const tag = randomBytes(4).toString('hex');

  const started = (): { host: GatewayHost; goals: GoalStore } => {
    if (!host || !goals) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the goals service has not started', { hint: 'retry once the gateway is ready' });
    return { host, goals };
  };

  const view = async (group: string, goal: Goal | null): Promise<GoalView> => ({ group, goal: goal ? { ...goal, spent: await goalSpent(started().host.store, goal) } : null });

  const announce = async (group: string, goal: Goal | null): Promise<GoalView> => {
    const shown = await view(group, goal);
    started().host.publish(group, null, GoalNotifications.changed, shown);
    return shown;
  };

  /** Tells every client of the group (TUI notice, channel watchers) that a budget stopped something; throttled per budget. */
  const notice = (group: string, refusal: SpendRefusal, what: string): void => {
    const key = `${group}\0${refusal.budget}\0${what}`;
    const now = started().host.clock.now();
    if ((noticed.get(key) ?? -Infinity) > now - NOTICE_REPEAT_MS) return;
    noticed.set(key, now);
    tellGroup(started().host, { group, source: 'budget', code: ErrorCodes.BUDGET_EXCEEDED, budget: refusal.budget, message: `${what}: ${refusal.message} [BUDGET_EXCEEDED]; ${refusal.hint}` });
  };

  /** The spendCheck tap: the group's budgets, then the goal's (and its deadline) for a goal's inputs. */
  const check = async (request: SpendRequest): Promise<SpendRefusal | undefined> => {
    const gateway = started();
    const config = gateway.host.kernel.config.claw?.groups?.[request.group];
    const refusal = await groupBudgetRefusal(gateway.host.store, request.group, config, request, gateway.host.clock.now());
    if (refusal) {
      notice(request.group, refusal, request.phase === 'call' ? 'a run was stopped' : `${request.source.kind === 'system' ? request.source.origin : 'an input'} was not submitted`);
      return refusal;
    }
    if (request.source.kind !== 'system' || request.source.origin !== GOAL_ORIGIN) return undefined;
    const goal = await gateway.goals.get(request.source.id);
    if (!goal) return undefined;
    if (goal.deadlineAt !== null && gateway.host.clock.now() >= goal.deadlineAt) {
      return { budget: `goal ${goal.id} deadline`, message: `the goal of group ${goal.group} passed its deadline ${new Date(goal.deadlineAt).toISOString()}`, hint: 'set a new goal with a later --deadline' };
    }
    const over = await goalBudgetRefusal(gateway.host.store, goal);
    if (over && request.phase === 'call') notice(request.group, over, 'the goal run was stopped');
    return over;
  };

  /** Ends an active goal that can go no further (budget, deadline), telling every client why. */
  const stop = async (goal: Goal, status: GoalStatus, refusal: SpendRefusal): Promise<void> => {
    const gateway = started();
    const moved = await gateway.goals.move(goal.id, ['active'], status, gateway.host.clock.now(), { stopReason: `${refusal.message}; ${refusal.hint}` });
    if (!moved) return;
    notice(goal.group, refusal, 'the goal stopped');
    await announce(goal.group, moved);
  };

  /** One idle period of `runtime`: submits the goal's continuation if everything allows it. */
  const consider = async (runtime: GroupRuntime, period: string): Promise<void> => {
    if (stopped || !followed.has(runtime.name) || runtime.busy) return;
    const gateway = started();
    const goal = await gateway.goals.open(runtime.name);
    if (!goal || goal.status !== 'active') return;
    const plan = await planInEffect(gateway.host.store, runtime.name);
    if (plan?.plan?.status === 'planning') return;
    const source = { kind: 'system', origin: GOAL_ORIGIN, id: goal.id, name: 'goal' } as const;
    const refusal = await spendRefusal(gateway.host.hooks, { phase: 'submit', group: runtime.name, source });
    if (refusal) {
      // The goal's own budget or deadline ends it; the group's (daily) budget only holds it back.
      if (refusal.budget.startsWith(`goal ${goal.id}`)) await stop(goal, refusal.budget.endsWith('deadline') ? 'expired' : 'exceeded', refusal);
      return;
    }
    if (stopped || runtime.busy) return;
    if (!(await gateway.goals.claimNudge(goal.id, period, gateway.host.clock.now()))) return;
    runtime.runSystem({ text: continuationText(goal), source }).then(
      (result) => {
        if (result.status !== 'completed') gateway.host.log(`goals: group ${runtime.name}: the continuation of goal ${goal.id} ended ${result.status}${result.errorMessage ? `: ${result.errorMessage}` : ''}`);
      },
      (error: unknown) => gateway.host.log(`goals: group ${runtime.name}: could not submit the continuation of goal ${goal.id}: ${describeError(error)}`),
    );
  };

  const considerLater = (runtime: GroupRuntime, period: string): void => {
    // After the run's end settled and the group took (or did not take) its next input.
    setImmediate(() => void consider(runtime, period).catch((error: unknown) => host?.log(`goals: group ${runtime.name}: ${describeError(error)}`)));
  };

  const runtimeOf = (name: string | undefined): GroupRuntime => started().host.group(name);

  /** Announces the goal after the model's goal_update (once per agent). */
  const followAgent = (agent: Agent, group: string): void => {
    if (followedAgents.has(agent)) return;
    followedAgents.add(agent);
    agent.subscribe((event) => {
      if (event.type !== 'tool_end' || event.toolName !== GOAL_UPDATE_TOOL) return;
      started()
        .goals.latest(group)
        .then((goal) => announce(group, goal))
        .catch((error: unknown) => host?.log(`goals: group ${group}: could not announce the goal: ${describeError(error)}`));
    });
  };

  const change = async (params: { group?: string }, from: GoalStatus[], to: GoalStatus, extra: { budgetTokens?: number; budgetCost?: number } = {}): Promise<GoalView> => {
    const gateway = started();
    const runtime = runtimeOf(params.group);
    const goal = await gateway.goals.open(runtime.name) ?? (to === 'active' ? await gateway.goals.latest(runtime.name) : null);
    if (!goal || !from.includes(goal.status)) {
      throw new XdogError(ErrorCodes.INVALID_STATE, goal ? `the goal of group ${runtime.name} is ${goal.status}, so it cannot become ${to}` : `group ${runtime.name} has no goal`, {
        hint: goal ? 'xdog claw goal show says where it stands; xdog claw goal set starts a new one' : 'set one: xdog claw goal set "TEXT"',
      });
    }
    const moved = await gateway.goals.move(goal.id, from, to, gateway.host.clock.now(), { ...extra, ...(to === 'active' ? { stopReason: null } : {}) });
    if (!moved) throw new XdogError(ErrorCodes.STALE, `the goal of group ${runtime.name} changed meanwhile`, { hint: 'xdog claw goal show, then decide again' });
    const shown = await announce(runtime.name, moved);
    if (to === 'active') considerLater(runtime, `resume:${moved.updatedAt}:${tag}`);
    return shown;
  };

  return {
    name: 'claw-goals',
    capabilities: [GOALS_CAPABILITY],
    methods: {
      'goal.set': gatewayMethod(
        z.object({ group: Group, text: z.string().min(1), ...Budgets, deadlineSeconds: z.number().int().positive().optional(), check: z.string().min(1).optional() }).strict(),
        async (params): Promise<GoalView> => {
          const gateway = started();
          const runtime = runtimeOf(params.group);
          if (!runtime.tools().some((tool) => tool.name === GOAL_UPDATE_TOOL)) {
            throw new XdogError(ErrorCodes.INVALID_STATE, `group ${runtime.name} does not give its model the goal_update tool, so a goal could never be marked done`, {
              hint: `add goal_update to claw.groups.${runtime.name}.enabled_tools (or leave enabled_tools out) and restart the gateway`,
            });
          }
          const now = gateway.host.clock.now();
          const goal = await gateway.goals.create(runtime.name, runtime.activeSessionId, {
            text: params.text,
            ...(params.budgetTokens === undefined ? {} : { budgetTokens: params.budgetTokens }),
            ...(params.budgetCost === undefined ? {} : { budgetCost: params.budgetCost }),
            ...(params.deadlineSeconds === undefined ? {} : { deadlineAt: now + params.deadlineSeconds * 1000 }),
            ...(params.check === undefined ? {} : { checkCommand: params.check }),
          }, now);
          const shown = await announce(runtime.name, goal);
          considerLater(runtime, `set:${goal.id}`);
          return shown;
        },
      ),
      'goal.get': gatewayMethod(z.object({ group: Group }).strict(), async (params): Promise<GoalView> => {
        const runtime = runtimeOf(params.group);
        return view(runtime.name, await started().goals.latest(runtime.name));
      }),
      'goal.pause': gatewayMethod(z.object({ group: Group }).strict(), (params) => change(params, ['active'], 'paused')),
      'goal.resume': gatewayMethod(z.object({ group: Group, ...Budgets }).strict(), (params) =>
        change(params, ['paused', 'exceeded', 'expired'], 'active', { ...(params.budgetTokens === undefined ? {} : { budgetTokens: params.budgetTokens }), ...(params.budgetCost === undefined ? {} : { budgetCost: params.budgetCost }) }),
      ),
      'goal.done': gatewayMethod(z.object({ group: Group }).strict(), (params) => change(params, ['active', 'paused'], 'done')),
      'goal.abandon': gatewayMethod(z.object({ group: Group }).strict(), (params) => change(params, ['active', 'paused'], 'abandoned')),
    },
    async start(gatewayHost) {
      host = gatewayHost;
      goals = new GoalStore(gatewayHost.store);
      stopped = false;
      gatewayHost.hooks.spendCheck.tapPromise('claw-goals', check);
      gatewayHost.hooks.runStarting.tap('claw-goals', (info) => followAgent(info.agent, info.group));
      gatewayHost.hooks.runEnded.tap('claw-goals', (info) => {
        const runtime = gatewayHost.groups.get(info.group);
        if (runtime) considerLater(runtime, `after:${info.inputId}`);
      });
      await followGroups(gatewayHost, 'claw-goals', {
        ready: (runtime) => {
          followed.add(runtime.name);
          considerLater(runtime, `ready:${tag}`);
        },
        closing: (runtime) => void followed.delete(runtime.name),
      });
    },
    stopping() {
      stopped = true;
    },
    stop() {
      stopped = true;
      followed.clear();
      host = undefined;
      goals = undefined;
    },
  };
}
