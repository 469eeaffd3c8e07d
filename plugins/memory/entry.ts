/**
 * What a memory is and how its input is checked (the same rules for a
 * model's memory_write and a person's `xdog claw memory add`). Nothing is
 * clipped: an input over a limit is refused with the limit named.
 */
import { ErrorCodes, XdogError } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';

export type MemorySource = 'tool' | 'user';

/** One memory of a group. Times are epoch milliseconds. */
export interface MemoryEntry {
  id: number;
  group: string;
  text: string;
  tags: string[];
  /** The session whose tool call wrote it; null when a person added it. */
  sessionId: string | null;
  source: MemorySource;
  createdAt: number;
}

/** A memory to write. */
export interface MemoryInput {
  text: string;
  tags?: readonly string[];
  sessionId?: string | null;
  source: MemorySource;
}

// Tabs and newlines are text; other control characters (and bidi overrides) hide what a memory says.
// eslint-disable-next-line no-control-regex
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;
const TAG = /^[\p{L}\p{N}][\p{L}\p{N}_-]*$/u;

/** The text to store (surrounding whitespace dropped), or INVALID_ARGUMENT / LIMIT_EXCEEDED. */
export function checkMemoryText(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'a memory needs text', { hint: 'write one self-contained fact, e.g. "the staging database is db2.internal"' });
  const chars = [...trimmed].length;
  if (chars > LIMITS.memoryEntryChars) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the memory has ${chars} characters, more than the ${LIMITS.memoryEntryChars} one memory may hold`, {
      hint: 'save the essential fact, or split it into several memories',
    });
  }
  if (HIDDEN.test(trimmed)) throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'the memory contains control or bidi-override characters', { hint: 'remove them; plain text, tabs and newlines are fine' });
  return trimmed;
}

/** Tags folded to lower case, duplicates dropped; INVALID_ARGUMENT / LIMIT_EXCEEDED otherwise. */
export function checkMemoryTags(tags: readonly string[] = []): string[] {
  const folded = [...new Set(tags.map((tag) => tag.normalize('NFKC').toLowerCase()))];
  if (folded.length > LIMITS.memoryTags) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `a memory may have ${LIMITS.memoryTags} tags, not ${folded.length}`, { hint: 'keep the few that help find it again' });
  }
  for (const tag of folded) {
    if (!TAG.test(tag) || [...tag].length > LIMITS.memoryTagChars) {
      throw new XdogError(ErrorCodes.INVALID_ARGUMENT, `the tag ${JSON.stringify(tag)} is not a word of at most ${LIMITS.memoryTagChars} letters, digits, "-" or "_"`, {
        hint: 'use tags such as "deploy" or "db-staging"',
      });
    }
  }
  return folded;
}
