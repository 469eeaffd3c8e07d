/**
 * Skills picked for the next turn of a claw session (plugins/claw-skills).
 * The session-scoped selection is the session's `skills` state (it is copied
 * when a session is forked); a turn-scoped pick lives here from the moment
 * it is loaded until the run that uses it starts, so a gateway restart in
 * between keeps it. Portable column types (SQLite and PostgreSQL).
 */
import { EntitySchema } from 'typeorm';
import { bigintNumber } from './columns.js';

const UUID_CHARS = 36;

export interface ClawTurnSkillsRow {
  sessionId: string;
  /** The skill slugs as a JSON array of strings, in load order. */
  slugs: string;
  /** When the pick last changed (epoch ms, the gateway clock). */
  loadedAt: number;
}

export const ClawTurnSkillsEntity = new EntitySchema<ClawTurnSkillsRow>({
  name: 'ClawTurnSkills',
  tableName: 'claw_turn_skills',
  columns: {
    sessionId: { name: 'session_id', type: 'varchar', length: UUID_CHARS, primary: true },
    slugs: { type: 'text' },
    loadedAt: { name: 'loaded_at', type: 'bigint', transformer: bigintNumber },
  },
  foreignKeys: [{ target: 'ClawSession', columnNames: ['session_id'], referencedColumnNames: ['id'], name: 'fk_claw_turn_skills_session', onDelete: 'CASCADE' }],
});

export const CLAW_SKILLS_ENTITIES = [ClawTurnSkillsEntity];
