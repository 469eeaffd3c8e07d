/**
 * The kernel's hook points. Plugins tap them in `apply(kernel)` to wire
 * per-agent behaviour.
 */
import { SyncHook } from 'tapable';
import type { AgentHooks } from './agent.js';

/** The part of an Agent a kernel hook needs to know about. */
export interface HookedAgent {
  readonly hooks: AgentHooks;
}

/** Creates the hooks of one kernel. */
export function createKernelHooks<TAgent extends HookedAgent = HookedAgent>() {
  return Object.freeze({
    /**
     * Sync. Called once for every agent the kernel creates, before its first
     * prompt; taps wire per-agent hooks (`agent.hooks`).
     * @since 0.1.0
     */
    agentCreated: new SyncHook<[TAgent]>(['agent']),
    /**
     * Sync. Called when a kernel-created agent closes; taps release per-agent state.
     * @since 0.1.0
     */
    agentClosed: new SyncHook<[TAgent]>(['agent']),
  });
}

export type KernelHooks<TAgent extends HookedAgent = HookedAgent> = ReturnType<typeof createKernelHooks<TAgent>>;
