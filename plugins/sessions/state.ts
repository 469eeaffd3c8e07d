/** Per-session state (model, thinking, skills, plan, extension entries), saved beside the tree. */
import { z } from 'zod';
import { ErrorCodes, XdogError } from '../../core/index.js';
import { toState, type StateRow } from './rows.js';
import { DamagedStore } from './stored.js';
import type { Sql } from './sql.js';
import type { EntryInput, SessionState } from './types.js';

const StatePatchSchema = z
  .object({
    model: z.string().min(1),
    thinking: z.string().min(1).nullable(),
    skills: z.array(z.string().min(1)),
    plan: z.unknown(),
    extensionEntries: z.record(z.string(), z.unknown()),
  })
  .partial()
  .strict();

export async function readState(sql: Sql, sessionId: string): Promise<SessionState> {
  const [row] = await sql.all<StateRow>('SELECT model, thinking, skills, plan, extension_entries FROM claw_session_state WHERE session_id = :id', { id: sessionId });
  if (!row) throw new DamagedStore(`session ${sessionId} has no state row`);
  return toState(row, sessionId);
}

export function checkStatePatch(patch: Partial<SessionState>): Partial<SessionState> {
  const parsed = StatePatchSchema.safeParse(patch);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `session state ${issue.path.join('.') || 'patch'}: ${issue.message}`);
  }
  return parsed.data as Partial<SessionState>;
}

/** The new state and the model_change/thinking_change entries the patch implies. */
export function applyPatch(state: SessionState, patch: Partial<SessionState>): { state: SessionState; entries: EntryInput[] } {
  const next: SessionState = { ...state, ...patch, plan: patch.plan === undefined ? state.plan : patch.plan };
  const entries: EntryInput[] = [];
  if (next.model !== state.model) entries.push({ kind: 'model_change', payload: { model: next.model } });
  if (next.thinking !== state.thinking) entries.push({ kind: 'thinking_change', payload: { thinking: next.thinking } });
  return { state: next, entries };
}

export async function writeState(sql: Sql, sessionId: string, state: SessionState): Promise<void> {
  await sql.run('UPDATE claw_session_state SET model = :model, thinking = :thinking, skills = :skills, plan = :plan, extension_entries = :extensions WHERE session_id = :id', {
    id: sessionId,
    model: state.model,
    thinking: state.thinking,
    skills: JSON.stringify(state.skills),
    plan: state.plan === null || state.plan === undefined ? null : JSON.stringify(state.plan),
    extensions: JSON.stringify(state.extensionEntries),
  });
}
