/**
 * A session's skill selection and the changes `skills.load` / `skills.unload`
 * make to it. Pure: the callers read and write the store. Session skills sit
 * in every request's system prefix; turn skills wait for the next run only.
 * A slug is in at most one of the two lists.
 */
import { ErrorCodes, LIMITS, XdogError, type SkillDocument, type SkillRepo, type SkillScope } from '../../core/index.js';

export interface SkillSelection {
  /** In every request of the session, after the system prompt. */
  session: string[];
  /** In the next run's requests only, then gone. */
  turn: string[];
}

export const EMPTY_SELECTION: SkillSelection = Object.freeze({ session: [], turn: [] }) as SkillSelection;

/**
 * Adds `slugs` to a scope. Slugs already there stay where they are; a turn
 * skill loaded for the session moves there; a session skill cannot also be
 * loaded for a turn (it is in every request already).
 */
export function loadSkills(current: SkillSelection, slugs: readonly string[], scope: SkillScope): SkillSelection {
  assertDistinct(slugs);
  if (scope === 'session') {
    const added = slugs.filter((slug) => !current.session.includes(slug));
    return { session: [...current.session, ...added], turn: current.turn.filter((slug) => !slugs.includes(slug)) };
  }
  const both = slugs.filter((slug) => current.session.includes(slug));
  if (both.length) {
    throw new XdogError(ErrorCodes.CONFLICT, `${quoted(both)} ${both.length > 1 ? 'are' : 'is'} loaded for the session already, so ${both.length > 1 ? 'they are' : 'it is'} in every request`, {
      hint: `unload ${both.length > 1 ? 'them' : 'it'} first to use ${both.length > 1 ? 'them' : 'it'} for one turn only`,
    });
  }
  return { session: current.session, turn: [...current.turn, ...slugs.filter((slug) => !current.turn.includes(slug))] };
}

/** Removes `slugs` from whichever scope holds them; `null` removes everything. A slug not loaded fails. */
export function unloadSkills(current: SkillSelection, slugs: readonly string[] | null, sessionId: string): SkillSelection {
  if (slugs === null) return { session: [], turn: [] };
  assertDistinct(slugs);
  const missing = slugs.filter((slug) => !current.session.includes(slug) && !current.turn.includes(slug));
  if (missing.length) {
    const loaded = [...current.session, ...current.turn];
    throw new XdogError(ErrorCodes.NOT_FOUND, `${quoted(missing)} ${missing.length > 1 ? 'are' : 'is'} not loaded in session ${sessionId}`, {
      hint: loaded.length ? `loaded: ${loaded.join(', ')}` : 'no skill is loaded in this session',
    });
  }
  return { session: current.session.filter((slug) => !slugs.includes(slug)), turn: current.turn.filter((slug) => !slugs.includes(slug)) };
}

/** Fails naming every unknown slug and the skills there are. */
export function assertAvailable(repo: SkillRepo, slugs: readonly string[]): void {
  const available = repo.slugs();
  const unknown = slugs.filter((slug) => !available.includes(slug));
  if (!unknown.length) return;
  throw new XdogError(ErrorCodes.NOT_FOUND, `unknown skill${unknown.length > 1 ? 's' : ''} ${quoted(unknown)}`, {
    hint: available.length
      ? `available: ${available.join(', ')}`
      : 'no skills are installed; add a directory of skills under skills.dirs in the config (docs/skills.md)',
  });
}

/**
 * Reads the bodies of a selection, within the limits: at most
 * LIMITS.activeSkills skills and LIMITS.activeSkillBytes of bodies together.
 * An unreadable or vanished skill fails, naming the session it is loaded in.
 */
export function readSelection(repo: SkillRepo, selection: SkillSelection, sessionId: string): { session: SkillDocument[]; turn: SkillDocument[] } {
  const count = selection.session.length + selection.turn.length;
  if (count > LIMITS.activeSkills) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `session ${sessionId} would have ${count} skills loaded, over the limit of ${LIMITS.activeSkills}`, { hint: 'unload some first' });
  }
  const read = (slugs: string[]): SkillDocument[] =>
    slugs.map((slug) => {
      try {
        return repo.read(slug);
      } catch (error) {
        if (!XdogError.is(error)) throw error;
        // The message carries the way out: a failed run reports its message only.
        throw new XdogError(error.code, `skill "${slug}", loaded in session ${sessionId}, cannot be read (${error.message}); unload it with \`xdog claw skills unload ${slug}\` or restore its SKILL.md`, {
          ...(error.hint ? { hint: error.hint } : {}),
          cause: error,
        });
      }
    });
  const documents = { session: read(selection.session), turn: read(selection.turn) };
  const bytes = [...documents.session, ...documents.turn].reduce((sum, skill) => sum + Buffer.byteLength(skill.body, 'utf8'), 0);
  if (bytes > LIMITS.activeSkillBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the skills of session ${sessionId} would hold ${bytes} bytes of instructions, over the limit of ${LIMITS.activeSkillBytes}`, {
      hint: 'unload some first, or load the large ones for one turn at a time',
    });
  }
  return documents;
}

function assertDistinct(slugs: readonly string[]): void {
  const twice = slugs.find((slug, index) => slugs.indexOf(slug) !== index);
  if (twice) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `skill "${twice}" is named twice`, { hint: 'name each skill once' });
}

function quoted(slugs: readonly string[]): string {
  return slugs.map((slug) => `"${slug}"`).join(', ');
}
