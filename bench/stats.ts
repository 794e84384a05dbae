/** The p-th percentile (0..100, nearest rank) of values sorted ascending; NaN for none. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The median of values in any order. */
export function median(xs: number[]): number {
  return percentile([...xs].sort((a, b) => a - b), 50);
}
