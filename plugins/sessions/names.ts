/**
 * Session names and summaries: what a name may contain, how names and
 * summaries are folded for case-insensitive search, and the literal LIKE
 * pattern a search query becomes.
 */
import { BIDI_CONTROLS, ErrorCodes, LIMITS, XdogError, assertWithinLimit, utf8Bytes } from '../../core/index.js';

/**
 * Characters a name may not hold: C0 and C1 controls, DEL, the Unicode line
 * and paragraph separators, and the bidi embedding/override/isolate and mark
 * characters that can make a name display as something else.
 */
const FORBIDDEN = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029${BIDI_CONTROLS}]`, 'u');

function describe(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Checks a session name; null clears it. */
export function checkSessionName(name: string | null): string | null {
  if (name === null) return null;
  if (typeof name !== 'string') throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'a session name must be a string (or null to clear it)');
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > LIMITS.clawSessionNameBytes) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the session name is ${bytes} UTF-8 bytes, over the ${LIMITS.clawSessionNameBytes}-byte limit`, {
      hint: 'choose a shorter name',
    });
  }
  const forbidden = FORBIDDEN.exec(name);
  if (forbidden) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the session name holds ${describe(forbidden[0])} at character ${forbidden.index + 1}: control, line-separator and bidi characters are not allowed`);
  }
  if (!name.trim()) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'the session name is empty', { hint: 'to clear a name, pass null (`name -` in the CLI)' });
  return name;
}

/** Checks an explicit summary: ≤ LIMITS.clawSessionSummaryChars characters, same characters as a name. */
export function checkSummary(summary: string | null): string | null {
  if (summary === null) return null;
  const chars = [...summary].length;
  if (chars > LIMITS.clawSessionSummaryChars) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the session summary is ${chars} characters, over the ${LIMITS.clawSessionSummaryChars}-character limit`);
  }
  const forbidden = FORBIDDEN.exec(summary);
  if (forbidden) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the session summary holds ${describe(forbidden[0])} at character ${forbidden.index + 1}`);
  return summary;
}

/**
 * The automatic title made from a user's first text: whitespace runs (line
 * breaks included) become one space, forbidden characters are dropped, and it
 * is cut to LIMITS.clawSessionSummaryChars characters (a title, not data).
 */
export function summaryFromText(text: string): string | null {
  const clean = text
    .replace(new RegExp(FORBIDDEN.source, 'gu'), ' ')
    .replace(/\s+/gu, ' ')
    .trim();
  if (!clean) return null;
  const chars = [...clean];
  return chars.length > LIMITS.clawSessionSummaryChars ? `${chars.slice(0, LIMITS.clawSessionSummaryChars - 1).join('')}…` : clean;
}

/** Folds text for search the same way on every database (SQL LOWER() is ASCII-only on SQLite). */
export function foldForSearch(text: string | null): string | null {
  return text === null ? null : text.toLowerCase();
}

/** The escape character of searchPattern's LIKE pattern. */
export const LIKE_ESCAPE = '\\';

/** A LIKE pattern matching `query` literally anywhere (with ESCAPE '\'). */
export function searchPattern(query: string): string {
  if (typeof query !== 'string' || !query.trim()) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'the search query is empty');
  assertWithinLimit('the search query', utf8Bytes(query), LIMITS.clawSearchQueryBytes);
  return `%${foldForSearch(query)!.replace(/[\\%_]/g, (char) => LIKE_ESCAPE + char)}%`;
}
