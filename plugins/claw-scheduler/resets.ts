/**
 * Daily and idle resets, a gateway service. For each group with `reset`
 * configured it tracks since when the active session has been active
 * (created, reset to, or explicitly resumed: `claw_reset_state`), and once
 * the group's daily boundary (local time) has passed since then, or the
 * session has been quiet for `idle_minutes`, it archives the session (name
 * and metadata kept) and makes a new one active. Never during a run (the
 * group must be idle), never when a `resetSuppressed` tap vetoes, and never
 * right after a resume.
 */
import { ClawGroupNameSchema, describeError, ErrorCodes, XdogError, z, type ClawGroupConfig } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';
import { followGroups, gatewayMethod, type GatewayHost, type GatewayService, type GroupRuntime } from '../claw-gateway/tokens.js';
import type { SessionStore } from '../sessions/tokens.js';
import { defaultTimeZone, nextAfter } from './timing.js';
import { Waker } from './wake.js';

/** The notification subscribed clients get after a reset. */
export const SESSION_RESET_NOTIFICATION = 'session.reset';

type ResetConfig = NonNullable<ClawGroupConfig['reset']>;

interface ResetState {
  sessionId: string;
  since: number;
}

/** What `reset.status` answers for a group. */
export interface ResetStatus {
  group: string;
  /** The group's `reset` config; null when resets are off. */
  config: ResetConfig | null;
  timezone: string;
  sessionId: string | null;
  /** Since when the active session counts as active (created, reset to, or resumed). */
  since: number | null;
  /** When the next reset is due (it still waits for an idle group and may be vetoed). */
  nextResetAt: number | null;
  nextReason: 'daily' | 'idle' | null;
  /** The clock time of the last completed check. */
  checkedAt: number | null;
}

/** The reset state of one group, through the store's connections. */
class ResetStates {
  constructor(private readonly store: SessionStore) {}

  /**
   * The group's active session (with its times) and its reset state, read
   * together from the store: the runtime's copy of the active session may
   * lag behind a resume that just committed.
   */
  async snapshot(group: string): Promise<{ state?: ResetState; active?: { id: string; createdAt: number; updatedAt: number } }> {
    return this.store.withRead(async (sql) => {
      const [row] = await sql.all<{ session_id: string; since: number | string }>('SELECT session_id, since FROM claw_reset_state WHERE group_name = :group', { group });
      const [active] = await sql.all<{ id: string; created_at: number | string; updated_at: number | string }>(
        'SELECT s.id, s.created_at, s.updated_at FROM claw_groups g JOIN claw_sessions s ON s.id = g.active_session_id WHERE g.name = :group',
        { group },
      );
      return {
        ...(row ? { state: { sessionId: row.session_id, since: Number(row.since) } } : {}),
        ...(active ? { active: { id: active.id, createdAt: Number(active.created_at), updatedAt: Number(active.updated_at) } } : {}),
      };
    });
  }

  async set(group: string, state: ResetState): Promise<void> {
    await this.store.withTransaction(async (sql) => {
      const changed = await sql.run('UPDATE claw_reset_state SET session_id = :sessionId, since = :since WHERE group_name = :group', { group, ...state });
      if (changed === 0) await sql.run('INSERT INTO claw_reset_state (group_name, session_id, since) VALUES (:group, :sessionId, :since)', { group, ...state });
    });
  }
}

/** "HH:MM" as a daily cron expression. */
function dailyCron(at: string): string {
  const [hours, minutes] = at.split(':').map(Number);
  return `${minutes} ${hours} * * *`;
}

export class ResetService implements GatewayService {
  readonly name = 'resets';
  readonly capabilities = ['session-reset:1'];
  readonly methods = {
    'reset.status': gatewayMethod(z.object({ group: ClawGroupNameSchema.optional() }).strict(), (params) => this.#status(params.group)),
  };
  /** Per group, the clock time its last check finished (diagnostics; not state). */
  readonly #checkedAt = new Map<string, number>();
  #host?: GatewayHost;
  #states?: ResetStates;
  #waker?: Waker;
  #loop?: Promise<void>;
  #stopped = false;
  /** Vetoes already logged, so a long plan does not fill the log (one line per session and reason). */
  readonly #vetoesLogged = new Set<string>();

  async start(host: GatewayHost): Promise<void> {
    this.#host = host;
    this.#states = new ResetStates(host.store);
    const configured = this.#configured(host);
    if (configured.length === 0) return;
    this.#waker = new Waker(host.clock);
    // A group taken later (a worker's groups change while it runs) is checked at once.
    await followGroups(host, this.name, { ready: () => this.#waker?.poke() });
    host.hooks.sessionResumed.tapPromise(this.name, async (resumed) => {
      // An explicit resume starts the session's day (and its idle time) afresh.
      if (configured.some(([name]) => name === resumed.group)) await this.#states!.set(resumed.group, { sessionId: resumed.sessionId, since: resumed.at });
      this.#waker?.poke();
    });
    // A run's end may allow a reset that waited for an idle group, and moves the idle clock.
    host.hooks.runEnded.tap(this.name, () => this.#waker?.poke());
    this.#loop = this.#run(configured);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#waker?.dispose();
    await this.#loop;
  }

  /** Every configured group with a reset; the loop checks those this gateway serves at the time. */
  #configured(host: GatewayHost): Array<[string, ResetConfig]> {
    const groups = host.kernel.config.claw?.groups ?? {};
    return Object.entries(groups).flatMap(([name, config]) => (config.reset && (config.reset.daily_at || config.reset.idle_minutes) ? [[name, config.reset] as [string, ResetConfig]] : []));
  }

  async #run(configured: Array<[string, ResetConfig]>): Promise<void> {
    const host = this.#host!;
    while (!this.#stopped) {
      let wakeAt = host.clock.now() + LIMITS.scheduleWakeSeconds * 1000;
      for (const [name, config] of configured) {
        if (this.#stopped) return;
        const runtime = host.groups.get(name);
        if (!runtime) continue;
        try {
          const checkedAt = host.clock.now();
          const next = await this.#check(runtime, config);
          this.#checkedAt.set(name, checkedAt);
          if (next !== null) wakeAt = Math.min(wakeAt, next);
        } catch (error) {
          host.log(`resets: group ${name}: ${describeError(error)}`);
        }
      }
      await this.#waker!.until(wakeAt);
    }
  }

  async #status(name: string | undefined): Promise<ResetStatus> {
    const host = this.#host!;
    const runtime = host.group(name);
    const group = runtime.name;
    const config = host.kernel.config.claw?.groups?.[group]?.reset ?? null;
    const timezone = defaultTimeZone(host.kernel.config.claw?.groups?.[group]?.timezone);
    const due = config && runtime.activeSessionId ? await this.#due(runtime, config, false) : undefined;
    return {
      group,
      config,
      timezone,
      sessionId: runtime.activeSessionId,
      since: due?.since ?? null,
      nextResetAt: due && Number.isFinite(due.at) ? due.at : null,
      nextReason: due && Number.isFinite(due.at) ? due.reason : null,
      checkedAt: this.#checkedAt.get(group) ?? null,
    };
  }

  /** When the active session's next reset is due and why; `record` saves a session seen for the first time. */
  async #due(runtime: GroupRuntime, config: ResetConfig, record: boolean): Promise<{ sessionId: string; since: number; at: number; reason: 'daily' | 'idle' } | undefined> {
    const host = this.#host!;
    const group = runtime.name;
    const { active: session, state: recorded } = await this.#states!.snapshot(group);
    if (!session) return undefined;
    const active = session.id;
    let state = recorded;
    if (state?.sessionId !== active) {
      // A session made active by something other than a reset or a resume (new, fork, the first prompt): its day starts when it was created.
      state = { sessionId: active, since: session.createdAt };
      // Not while a control runs: a resume records its own time once it committed.
      if (record && !runtime.busy) await this.#states!.set(group, state);
    }
    const zone = defaultTimeZone(host.kernel.config.claw?.groups?.[group]?.timezone);
    const dailyAt = config.daily_at ? nextAfter({ kind: 'cron', cron: dailyCron(config.daily_at), timezone: zone }, state.since) : null;
    const idleAt = config.idle_minutes ? Math.max(state.since, session.updatedAt) + config.idle_minutes * 60_000 : null;
    const daily = dailyAt ?? Infinity;
    const idle = idleAt ?? Infinity;
    return { sessionId: active, since: state.since, at: Math.min(daily, idle), reason: daily <= idle ? 'daily' : 'idle' };
  }

  /** Resets the group when it is due; returns when to look again (null: at the next re-check or event). */
  async #check(runtime: GroupRuntime, config: ResetConfig): Promise<number | null> {
    const host = this.#host!;
    const states = this.#states!;
    const group = runtime.name;
    const due = await this.#due(runtime, config, true);
    if (!due) return null;
    const active = due.sessionId;
    const now = host.clock.now();
    if (due.at > now) return Number.isFinite(due.at) ? due.at : null;
    if (runtime.busy) return null;
    const { reason } = due;
    let veto: string | undefined;
    try {
      veto = await host.hooks.resetSuppressed.promise({ group, sessionId: active, reason, at: now });
    } catch (error) {
      veto = `a resetSuppressed tap failed: ${describeError(error)}`;
    }
    if (veto) {
      const key = `${active}:${reason}`;
      if (!this.#vetoesLogged.has(key)) {
        this.#vetoesLogged.add(key);
        host.log(`resets: group ${group}: the ${reason} reset of session ${active} is held back: ${veto}`);
      }
      return null;
    }
    try {
      const fresh = await runtime.control(active, async () => {
        const created = await host.store.createSession(group, runtime.newSessionOptions(), { expectedActiveSessionId: active });
        await host.store.archive(active);
        await states.set(group, { sessionId: created.id, since: now });
        return created;
      }, 'navigation');
      host.log(`resets: group ${group}: ${reason} reset: session ${active} archived, session ${fresh.id} is active`);
      host.publish(group, null, SESSION_RESET_NOTIFICATION, { group, reason, archivedSessionId: active, sessionId: fresh.id });
    } catch (error) {
      // A run or control got in first, or the active session changed: look again when the group is idle.
      if (XdogError.is(error, ErrorCodes.BUSY) || XdogError.is(error, ErrorCodes.STALE)) return null;
      throw error;
    }
    return null;
  }
}
