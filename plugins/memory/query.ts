/**
 * A memory search query, parsed from text a model or a person typed. The
 * text is hostile: it never reaches a database as query syntax. Only its
 * words survive (letters, digits and combining marks, folded to lower case),
 * and each index quotes them itself.
 */
import { ErrorCodes, XdogError } from '../../core/index.js';
import { LIMITS } from '../../core/limits.js';

/** The words of a query, in the order given. */
export interface MemoryQuery {
  terms: readonly string[];
}

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** INVALID_ARGUMENT without a word; LIMIT_EXCEEDED over LIMITS.memoryQueryChars or LIMITS.memoryQueryTerms. */
export function parseMemoryQuery(text: string): MemoryQuery {
  const chars = [...text].length;
  if (chars > LIMITS.memoryQueryChars) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the memory search query has ${chars} characters, more than the ${LIMITS.memoryQueryChars} allowed`, {
      hint: 'search with a few distinctive words',
    });
  }
  const terms = text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
  if (terms.length === 0) {
    throw new XdogError(ErrorCodes.INVALID_ARGUMENT, 'the memory search query has no words to look for', { hint: 'search with words or numbers, e.g. "deploy key"' });
  }
  if (terms.length > LIMITS.memoryQueryTerms) {
    throw new XdogError(ErrorCodes.LIMIT_EXCEEDED, `the memory search query has ${terms.length} words, more than the ${LIMITS.memoryQueryTerms} allowed`, {
      hint: 'search with a few distinctive words',
    });
  }
  return { terms };
}
