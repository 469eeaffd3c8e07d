/**
 * The gateway's `skills.*` methods and the tap that puts a session's skills
 * into its runs. The selection is stored (selection-store.ts) before a
 * method answers, so it survives a restart and any gateway worker sees it;
 * every run reads it afresh right before its input goes to the agent. So a
 * change made while a run is going on applies from the next turn, and a
 * turn skill is taken by exactly one run (it is gone once that run starts,
 * whether the run then succeeds or not: work is never replayed).
 */
import { ErrorCodes, LIMITS, XdogError, textWithin, z, type SkillScope } from '../../core/index.js';
import { followGroups, gatewayMethod, type GatewayHost, type GatewayService, type GroupRuntime } from '../claw-gateway/tokens.js';
import { consumeTurnSkills, readStoredSelection, writeStoredSelection } from './selection-store.js';
import { EMPTY_SELECTION, assertAvailable, loadSkills, readSelection, unloadSkills, type SkillSelection } from './selection.js';

/** A skill a session may load, as `skills.list` shows it. */
export interface SkillSummary {
  slug: string;
  description: string;
  title?: string;
  /** `plugin:<name>` for a packaged skill, else the name of its `skills.dirs` entry. */
  source: string;
}

/** What the skills methods answer. */
export interface SkillsView {
  group: string;
  /** The group's active session; null before its first one. */
  sessionId: string | null;
  /** Loaded for the session: in the system prefix of every request. */
  session: string[];
  /** Loaded for the next turn only. */
  turn: string[];
  available: SkillSummary[];
  /** A run was going on: a change applies from the next turn. */
  runActive: boolean;
}

export const SkillsNotifications = { changed: 'skills.changed' } as const;

const names = z.array(textWithin(128, { nonEmpty: true })).min(1).max(LIMITS.activeSkills);
const target = { group: z.string().optional(), expectedSessionId: z.string().optional() };

export function createSkillsService(): GatewayService {
  let host: GatewayHost | undefined;
  const started = (): GatewayHost => {
    if (!host) throw new XdogError(ErrorCodes.UNAVAILABLE, 'the skills service has not started', { hint: 'retry once the gateway is ready' });
    return host;
  };

  const availableIn = (runtime: GroupRuntime): SkillSummary[] =>
    runtime.skills.list().map(({ slug, description, title, source }) => ({ slug, description, ...(title === undefined ? {} : { title }), source }));
  const view = (runtime: GroupRuntime, sessionId: string | null, selection: SkillSelection, available: SkillSummary[]): SkillsView => ({
    group: runtime.name,
    sessionId,
    session: selection.session,
    turn: selection.turn,
    available,
    runActive: runtime.status().runStartedAt !== null,
  });

  /** The group's active session in the store; STALE when it is not the one the client expects. */
  const activeSession = async (gateway: GatewayHost, runtime: GroupRuntime, expected: string | undefined): Promise<string> => {
    const sessionId = (await gateway.store.getGroup(runtime.name)).activeSessionId;
    if (expected !== undefined && expected !== sessionId) {
      throw new XdogError(ErrorCodes.STALE, `the active session of group ${runtime.name} is ${sessionId ?? 'none'}, not ${expected}`, {
        hint: 'it changed since you looked; list the skills again and decide anew',
      });
    }
    if (!sessionId) throw new XdogError(ErrorCodes.NOT_FOUND, `group ${runtime.name} has no active session yet`, { hint: 'send a prompt first, or create one with `xdog claw sessions new`' });
    return sessionId;
  };

  /** Applies a change to the active session's selection in one transaction, saved before it is answered. */
  const change = async (
    params: { group?: string; expectedSessionId?: string },
    next: (current: SkillSelection, runtime: GroupRuntime, sessionId: string) => SkillSelection,
    options: { clearsCorrupt?: boolean } = {},
  ): Promise<SkillsView> => {
    const gateway = started();
    const runtime = gateway.group(params.group);
    const sessionId = await activeSession(gateway, runtime, params.expectedSessionId);
    // Indexed first: a broken index fails the change before anything is written.
    const available = availableIn(runtime);
    const selection = await gateway.store.withTransaction(async (sql) => {
      let current: SkillSelection | null;
      try {
        current = await readStoredSelection(sql, sessionId);
      } catch (error) {
        // Only `unload --all` may replace a selection that cannot be read: it is how the user clears it.
        if (!XdogError.is(error, ErrorCodes.STORE_CORRUPT) || !options.clearsCorrupt) throw error;
        current = null;
      }
      const updated = next(current ?? EMPTY_SELECTION, runtime, sessionId);
      await writeStoredSelection(sql, sessionId, current, updated, gateway.clock.now());
      return updated;
    });
    const result = view(runtime, sessionId, selection, available);
    gateway.publish(runtime.name, sessionId, SkillsNotifications.changed, result);
    return result;
  };

  return {
    name: 'skills',
    capabilities: ['skills:1'],
    methods: {
      'skills.list': gatewayMethod(z.object({ group: z.string().optional() }).strict(), async (params) => {
        const gateway = started();
        const runtime = gateway.group(params.group);
        const sessionId = (await gateway.store.getGroup(runtime.name)).activeSessionId;
        const selection = sessionId ? await gateway.store.withRead((sql) => readStoredSelection(sql, sessionId)) : EMPTY_SELECTION;
        return view(runtime, sessionId, selection, availableIn(runtime));
      }),
      'skills.load': gatewayMethod(z.object({ ...target, names, scope: z.enum(['session', 'turn']).default('session') }).strict(), (params) =>
        change(params, (current, runtime, sessionId) => {
          assertAvailable(runtime.skills, params.names);
          const updated = loadSkills(current, params.names, params.scope as SkillScope);
          // Within the limits and readable now, so the next run does not fail on them.
          readSelection(runtime.skills, updated, sessionId);
          return updated;
        }),
      ),
      'skills.unload': gatewayMethod(
        z
          .object({ ...target, names: names.optional(), all: z.literal(true).optional() })
          .strict()
          .refine((params) => (params.names === undefined) !== (params.all === undefined), 'give either names or all: true'),
        (params) => change(params, (current, _runtime, sessionId) => unloadSkills(current, params.names ?? null, sessionId), { clearsCorrupt: params.all === true }),
      ),
    },
    async start(gatewayHost) {
      host = gatewayHost;
      // A group's configured skills (what its new sessions start with) must exist: a typo fails the start (a worker: taking the group), not every run.
      await followGroups(gatewayHost, 'skills', {
        ready: (runtime) => {
          const configured = gatewayHost.kernel.config.claw?.groups?.[runtime.name]?.skills ?? [];
          try {
            assertAvailable(runtime.skills, configured);
          } catch (error) {
            if (!XdogError.is(error)) throw error;
            throw new XdogError(ErrorCodes.CONFIG_INVALID, `claw.groups.${runtime.name}.skills: ${error.message}`, { hint: error.hint, cause: error });
          }
        },
      });
      gatewayHost.hooks.runStarting.tapPromise('skills', async ({ group, sessionId, agent }) => {
        const runtime = gatewayHost.groups.get(group);
        if (!runtime) return;
        const selection = await gatewayHost.store.withRead((sql) => readStoredSelection(sql, sessionId));
        if (!selection.session.length && !selection.turn.length && !agent.activeSkills.length) return;
        readSelection(runtime.skills, selection, sessionId);
        agent.setActiveSkills(selection.session, 'session');
        agent.setActiveSkills(selection.turn, 'turn');
        if (selection.turn.length) await gatewayHost.store.withTransaction((sql) => consumeTurnSkills(sql, sessionId, selection.turn));
      });
    },
    stop() {
      host = undefined;
    },
  };
}
