/**
 * Where a claw group's kernel meets the gateway's children service: the
 * group kernel's `agent` tool asks this slot for the group's durable child
 * runtime, which the service attaches when it starts (after the group
 * kernels were built, before any client is served).
 */
import { ErrorCodes, XdogError, token } from '../../core/index.js';
import type { DurableChildRuntime } from './durable-runtime.js';

export class GroupChildren {
  #runtime: DurableChildRuntime | undefined;

  /** Service-side: the runtime the group's `agent` tool drives from now on. */
  attach(runtime: DurableChildRuntime | undefined): void {
    this.#runtime = runtime;
  }

  runtime(): DurableChildRuntime {
    if (!this.#runtime) throw new XdogError(ErrorCodes.UNAVAILABLE, 'child agents are not available in this group: the gateway\'s children service is not running', { hint: 'restart the gateway' });
    return this.#runtime;
  }
}

/** Bound in group kernels (those with ClawGroupToken) by the children plugin. */
export const GroupChildrenToken = token<GroupChildren>('children.GroupChildren');
