/**
 * Nesting depth of parsed JSON. Deeply nested input parses fine but
 * overflows the stack of every recursive consumer after it (schema checks,
 * templates, serialization), so it is measured without recursion, up front.
 */

/** True when `value` nests arrays/objects more than `max` levels deep. Iterative, so any depth is safe to ask about. */
export function jsonDeeperThan(value: unknown, max: number): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (pending.length) {
    const { value: current, depth } = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(current)) pending.push({ value: child, depth: depth + 1 });
  }
  return false;
}
