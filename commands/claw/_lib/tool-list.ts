/** The onboarding answer for tools: names or 1-based numbers separated by commas, or `all` / `none`. */
import { ErrorCodes, XdogError } from '../../../core/errors.js';

/**
 * The tools `answer` selects from `available` (in the order given, without
 * repeats). `all` is every available tool, `none` is `[]`; anything unknown is
 * a usage error naming it.
 */
export function parseToolSelection(answer: string, available: readonly string[]): string[] {
  const text = answer.trim().toLowerCase();
  if (text === 'all') return [...available];
  if (text === 'none') return [];
  const words = answer.split(',').map((word) => word.trim());
  if (words.some((word) => word === '')) {
    throw new XdogError(ErrorCodes.USAGE, `"${answer}" has an empty item`, { hint: 'give names or numbers separated by commas, or all, or none' });
  }
  const chosen: string[] = [];
  const unknown: string[] = [];
  for (const word of words) {
    const tool = /^\d+$/.test(word) ? available[Number(word) - 1] : available.find((name) => name === word);
    if (tool === undefined) unknown.push(word);
    else if (!chosen.includes(tool)) chosen.push(tool);
  }
  if (unknown.length > 0) {
    throw new XdogError(ErrorCodes.USAGE, `unknown tool${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, {
      hint: `choose from 1-${available.length} or: ${available.join(', ')}; or all, or none`,
    });
  }
  return chosen;
}
