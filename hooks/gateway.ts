/**
 * The gateway's hook points. Gateway services (scheduler, channels, memory,
 * extensions, children) tap them in their `start(host)` to follow groups and
 * runs without the gateway knowing about them.
 */
import { AsyncSeriesHook, SyncHook } from 'tapable';

/** How a group's run ended: what `run.end` tells clients, plus its times. */
export interface RunEndedInfo {
  group: string;
  sessionId: string;
  /** The id of the input that started the run. */
  inputId: string;
  status: string;
  errorMessage?: string;
  /** Epoch ms, from the gateway's clock. */
  startedAt: number;
  endedAt: number;
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
     * Sync. Called when a run of a group ended (after its writes settled,
     * before the group takes its next input). Taps must not throw.
     * @since 0.2.0
     */
    runEnded: new SyncHook<[RunEndedInfo]>(['run']),
  });
}

export type GatewayHooks<TGroup> = ReturnType<typeof createGatewayHooks<TGroup>>;
