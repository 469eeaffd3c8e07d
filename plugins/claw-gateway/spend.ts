/**
 * The gateway's spending check (the `spendCheck` hook): asked before each
 * model call and before a service submits a system input. A failing tap
 * refuses (fail closed); a refusal becomes BUDGET_EXCEEDED, naming the budget
 * and how to raise it.
 */
import { ErrorCodes, XdogError, describeError, type GatewayHooks, type GroupNotice, type SpendRefusal, type SpendRequest } from '../../core/index.js';
import { Notifications } from './protocol.js';
import type { GatewayHost } from './services.js';

/** The refusal the taps answer for `request`; a tap that fails is a refusal too. */
export async function spendRefusal<T>(hooks: GatewayHooks<T>, request: SpendRequest): Promise<SpendRefusal | undefined> {
  try {
    return await hooks.spendCheck.promise(request);
  } catch (error) {
    return { budget: 'the spending check', message: `the spending check of group ${request.group} failed: ${describeError(error)}`, hint: 'check the gateway log and the store; nothing is spent until it works' };
  }
}

/** The error a refused model call ends its run with. */
export function budgetExceeded(refusal: SpendRefusal): XdogError {
  return new XdogError(ErrorCodes.BUDGET_EXCEEDED, refusal.message, { hint: refusal.hint, details: { budget: refusal.budget } });
}

/** Throws BUDGET_EXCEEDED when the taps refuse `request`. */
export async function assertSpendAllowed<T>(hooks: GatewayHooks<T>, request: SpendRequest): Promise<void> {
  const refusal = await spendRefusal(hooks, request);
  if (refusal) throw budgetExceeded(refusal);
}

/** Tells every client of the group (a `notice` notification) and every channel of it (the `notice` hook). */
export function tellGroup(host: GatewayHost, notice: GroupNotice): void {
  host.publish(notice.group, null, Notifications.notice, notice);
  try {
    host.hooks.notice.call(notice);
  } catch (error) {
    host.log(`a notice tap failed for group ${notice.group}: ${describeError(error)}`);
  }
}
