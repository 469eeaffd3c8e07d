/**
 * Splits a reply into pieces a transport takes: at paragraph breaks, then
 * line breaks, then spaces, and only inside a word when one word is longer
 * than the limit. Nothing is dropped: the pieces joined by their break are
 * the text.
 */
export function chunkText(text: string, maxChars: number): string[] {
  if (maxChars < 1) throw new RangeError('maxChars must be at least 1');
  const chunks: string[] = [];
  let rest = text.trim();
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars + 1);
    const cut = lastBreak(window, '\n\n') ?? lastBreak(window, '\n') ?? lastBreak(window, ' ') ?? maxChars;
    const piece = rest.slice(0, cut).trimEnd();
    if (piece) chunks.push(piece);
    rest = rest.slice(cut).trimStart();
  }
  if (rest) chunks.push(rest);
  return chunks;
}

/** The index of the last `separator` in `window` that leaves a non-empty piece, if any. */
function lastBreak(window: string, separator: string): number | undefined {
  const index = window.lastIndexOf(separator);
  return index > 0 ? index : undefined;
}
