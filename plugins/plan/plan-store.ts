/**
 * Loading and saving the plan of a group's active session through the
 * session store (its `plan` sidecar, copied to a branch when it is forked).
 * A group runs only in its active session, so "the plan in effect" is the
 * active session's.
 */
import { ErrorCodes, XdogError } from '../../core/index.js';
import type { SessionStore } from '../sessions/tokens.js';
import { decodePlan, type PlanState } from './state.js';

export interface SessionPlan {
  sessionId: string;
  plan: PlanState | null;
}

export async function activeSessionOf(store: SessionStore, group: string): Promise<string> {
  const sessionId = (await store.getGroup(group)).activeSessionId;
  if (!sessionId) throw new XdogError(ErrorCodes.NOT_FOUND, `group ${group} has no active session yet`, { hint: 'send a prompt first, or create one with `xdog claw sessions new`' });
  return sessionId;
}

/** The session's plan; STORE_CORRUPT when it cannot be decoded. */
export async function loadPlan(store: SessionStore, sessionId: string): Promise<PlanState | null> {
  return decodePlan((await store.getState(sessionId)).plan, sessionId);
}

/** The plan in effect for a group (null when it has no active session or no plan). */
export async function planInEffect(store: SessionStore, group: string): Promise<SessionPlan | null> {
  const sessionId = (await store.getGroup(group)).activeSessionId;
  return sessionId ? { sessionId, plan: await loadPlan(store, sessionId) } : null;
}

export async function savePlan(store: SessionStore, sessionId: string, plan: PlanState | null): Promise<void> {
  await store.updateState(sessionId, { plan });
}
