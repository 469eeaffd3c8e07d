/** Small English helpers for messages. */

/** `word` with its indefinite article: "a webhook", "an irc", "an inherit" (by its first letter, which fits the names xdog prints). */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}
