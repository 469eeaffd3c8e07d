/**
 * The gateway's hook points. Gateway services (scheduler, channels, memory,
 * extensions, children) tap them in their `start(host)` to follow groups and
 * runs without the gateway knowing about them.
 */
import { AsyncSeriesBailHook, AsyncSeriesHook, SyncHook } from 'tapable';
import type { Agent } from '../core/agent/agent.js';

/**
 * Where a run's input came from: a prompt (from a client or a channel) with
 * its idempotency key, or an input from the host itself (a scheduled job) with
 * its origin and id.
 */
export type RunInputSource = { kind: 'prompt'; key: string } | { kind: 'system'; origin: string; id: string; name?: string };

/** How a group's run ended: what `run.end` tells clients, plus its times. */
export interface RunEndedInfo {
  group: string;
  sessionId: string;
  /** The id of the input that started the run. */
  inputId: string;
  /** Where that input came from. */
  source: RunInputSource;
  status: string;
  errorMessage?: string;
  /** Epoch ms, from the gateway's clock. */
  startedAt: number;
  endedAt: number;
}

/** A reset the gateway is about to make: the group's active session would be archived and replaced. */
export interface ResetRequest {
  group: string;
  /** The active session that would be archived. */
  sessionId: string;
  /** Why: the daily boundary passed, or the group was idle long enough. */
  reason: 'daily' | 'idle';
  /** Epoch ms, from the gateway's clock. */
  at: number;
}

/** A session a client made active again with `session.resume`. */
export interface SessionResumedInfo {
  group: string;
  sessionId: string;
  /** Epoch ms, from the gateway's clock. */
  at: number;
}

/** A run about to start: its session's live agent is idle and its input not yet admitted. */
export interface RunStartingInfo {
  group: string;
  sessionId: string;
  /** The id of the input that starts the run. */
  inputId: string;
  /** The session's agent; a tap may prepare it for this run (active skills), never prompt it. */
  agent: Agent;
}

/**
 * Spending a group is about to do: a model call of a run (`call`), or a
 * system input a service is about to submit (`submit`: a scheduled job, a
 * goal's continuation), so a budget can stop it before it runs.
 */
export interface SpendRequest {
  phase: 'call' | 'submit';
  group: string;
  /** The session the run uses (for `submit`, when known). */
  sessionId?: string;
  /** Where the run's input came from (for `submit`, where it would come from). */
  source: RunInputSource;
  /** Epoch ms the run started (`call` only). */
  runStartedAt?: number;
}

/** Why spending is refused: a person-readable reason naming the budget, and how to raise it. */
export interface SpendRefusal {
  /** The budget, e.g. "claw.groups.main.budget.per_day.cost". */
  budget: string;
  message: string;
  hint: string;
}

/** A model call a run is about to make (GroupRuntime asks `spendCheck` with it). */
export interface ModelCallInfo {
  group: string;
  sessionId: string;
  inputId: string;
  source: RunInputSource;
  runStartedAt: number;
  /** The turn of the run (0 for its first call). */
  turn: number;
}

/** Something the people of a group should know (a budget stopped spending), for every client and channel. */
export interface GroupNotice {
  group: string;
  /** Who says it ("budget", "extensions"). */
  source: string;
  message: string;
  /** An error code it is about (BUDGET_EXCEEDED). */
  code?: string;
  /** The budget it is about, e.g. "claw.groups.main.budget.per_day.cost". */
  budget?: string;
}

/** Creates the hooks of one gateway. `TGroup` is the gateway's group runtime. */
export function createGatewayHooks<TGroup>() {
  return Object.freeze({
    /**
     * AsyncSeries. Called once per group after it loaded and before the
     * gateway serves clients; a failing tap fails the gateway's start.
     * @since 0.2.0
     */
    groupReady: new AsyncSeriesHook<[TGroup]>(['group']),
    /**
     * AsyncSeries. Called when the gateway gives a group up while it keeps
     * running (a worker lost the group's lease or hands it to another worker),
     * before the group's runtime closes: taps stop feeding it (scheduler,
     * channels) and drop what they hold for it. Not called when the whole
     * gateway closes (services' `stop()` covers that). A failing tap is logged;
     * the group closes anyway.
     * @since 0.3.0
     */
    groupClosing: new AsyncSeriesHook<[TGroup]>(['group']),
    /**
     * Sync. Called when a run of a group ended (after its writes settled,
     * before the group takes its next input). Taps must not throw.
     * @since 0.2.0
     */
    runEnded: new SyncHook<[RunEndedInfo]>(['run']),
    /**
     * AsyncSeriesBail. Asked before an automatic (daily or idle) reset; a tap
     * that returns a reason (a string) vetoes it — plan mode and active
     * children do — and the reset is tried again at the next check. A
     * failing tap vetoes too (fail closed: a session is never replaced by
     * mistake).
     * @since 0.2.0
     */
    resetSuppressed: new AsyncSeriesBailHook<[ResetRequest], string | undefined>(['reset']),
    /**
     * AsyncSeries. Called after `session.resume` made a session active, before
     * the method answers; the resets service records it so an explicit resume
     * is not reset at the next check. A failing tap fails the method (the
     * session stays active).
     * @since 0.2.0
     */
    sessionResumed: new AsyncSeriesHook<[SessionResumedInfo]>(['resumed']),
    /**
     * AsyncSeries. Called before each run of a group, right before its input
     * goes to the agent (after an automatic compaction); the skills service
     * activates the session's skills here. A failing tap fails the run before
     * any model call (it ends with status "error" and its message).
     * @since 0.2.0
     */
    runStarting: new AsyncSeriesHook<[RunStartingInfo]>(['run']),
    /**
     * AsyncSeriesBail. Asked before each model call of a group's run and
     * before a service submits a system input; a tap that returns a
     * SpendRefusal stops it (budgets do): the call is refused and its run ends
     * with BUDGET_EXCEEDED, or the input is not submitted. A failing tap
     * refuses too (fail closed: spending is never allowed by mistake).
     * @since 0.4.0
     */
    spendCheck: new AsyncSeriesBailHook<[SpendRequest], SpendRefusal | undefined>(['request']),
    /**
     * Sync. Called when a service tells a group's people something
     * (`tellGroup`: a budget stopped spending), after the `notice`
     * notification went to the group's clients; the channels service sends
     * it to each channel's allowed senders. Taps must not throw.
     * @since 0.4.0
     */
    notice: new SyncHook<[GroupNotice]>(['notice']),
  });
}

export type GatewayHooks<TGroup> = ReturnType<typeof createGatewayHooks<TGroup>>;
