/** Small statistics shared by the benches. */

/** The median of a non-empty list. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The smallest and largest value. */
export function spread(values) {
  return { min: Math.min(...values), max: Math.max(...values) };
}
