/**
 * Where a session's skill selection is kept: the session-scoped slugs in the
 * session's `skills` state (claw_session_state; a fork copies it, like the
 * rest of the state), the turn-scoped ones in claw_turn_skills until the run
 * that uses them starts. Each function runs inside the caller's transaction
 * or read. Saved values that are not lists of slugs are refused, never
 * replaced by an empty selection.
 */
import { z } from 'zod';
import { ErrorCodes, SKILL_SLUG_PATTERN, XdogError } from '../../core/index.js';
import type { Sql } from '../sessions/tokens.js';
import type { SkillSelection } from './selection.js';

const SlugsSchema = z.array(z.string().regex(SKILL_SLUG_PATTERN));

function decodeSlugs(text: string, what: string, sessionId: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const parsed = SlugsSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new XdogError(ErrorCodes.STORE_CORRUPT, `the ${what} skills of session ${sessionId} are not a list of skill names`, {
    hint: 'clear them with `xdog claw skills unload --all`, or restore the claw store from a backup',
  });
}

export async function readStoredSelection(sql: Sql, sessionId: string): Promise<SkillSelection> {
  // Both picks in one statement: every run starts with this read.
  const [state] = await sql.all<{ skills: string; slugs: string | null }>(
    'SELECT s.skills AS skills, t.slugs AS slugs FROM claw_session_state s LEFT JOIN claw_turn_skills t ON t.session_id = s.session_id WHERE s.session_id = :id',
    { id: sessionId },
  );
  if (!state) throw new XdogError(ErrorCodes.NOT_FOUND, `session ${sessionId} has no state`, { hint: 'list the sessions with `xdog claw sessions list`' });
  return { session: decodeSlugs(state.skills, 'session', sessionId), turn: state.slugs === null ? [] : decodeSlugs(state.slugs, 'next-turn', sessionId) };
}

/**
 * Saves `next` over `previous`, what the same transaction read (null: it could
 * not be read, so everything is rewritten). The turn row is written only when
 * the turn pick changed, and goes when no turn skill is left.
 */
export async function writeStoredSelection(sql: Sql, sessionId: string, previous: SkillSelection | null, next: SkillSelection, now: number): Promise<void> {
  const changed = await sql.run('UPDATE claw_session_state SET skills = :skills WHERE session_id = :id', { id: sessionId, skills: JSON.stringify(next.session) });
  if (changed !== 1) throw new XdogError(ErrorCodes.NOT_FOUND, `session ${sessionId} has no state`, { hint: 'list the sessions with `xdog claw sessions list`' });
  if (previous && JSON.stringify(previous.turn) === JSON.stringify(next.turn)) return;
  await sql.run('DELETE FROM claw_turn_skills WHERE session_id = :id', { id: sessionId });
  if (next.turn.length) {
    await sql.run('INSERT INTO claw_turn_skills (session_id, slugs, loaded_at) VALUES (:id, :slugs, :now)', { id: sessionId, slugs: JSON.stringify(next.turn), now });
  }
}

/** Consumes the turn skills a run took, keeping any loaded since it read them. */
export async function consumeTurnSkills(sql: Sql, sessionId: string, taken: readonly string[]): Promise<void> {
  const left = (await readStoredSelection(sql, sessionId)).turn.filter((slug) => !taken.includes(slug));
  if (left.length) await sql.run('UPDATE claw_turn_skills SET slugs = :slugs WHERE session_id = :id', { id: sessionId, slugs: JSON.stringify(left) });
  else await sql.run('DELETE FROM claw_turn_skills WHERE session_id = :id', { id: sessionId });
}
