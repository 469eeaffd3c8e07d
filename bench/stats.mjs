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

/** The value below which `p` percent of the list falls (nearest rank); NaN for an empty list. */
export function percentile(values, p) {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
