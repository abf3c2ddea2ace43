/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function median(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** (max − min) / median, in percent: how far the rounds disagree (NaN for a single round). */
export function spreadPct(values: number[]): number {
  const finite = values.filter(Number.isFinite);
  if (finite.length < 2) return NaN;
  return ((Math.max(...finite) - Math.min(...finite)) / median(finite)) * 100;
}
