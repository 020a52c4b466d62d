/**
 * The median and 95th percentile of a set of latencies (nearest-rank).
 *
 * @example
 * const summary: LatencySummary = { p50: 3.1, p95: 4.8, count: 100 };
 */
export interface LatencySummary {
  p50: number;
  p95: number;
  count: number;
}

/**
 * Nearest-rank percentile `p` (0 < p ≤ 100) of `samples`.
 *
 * @example
 * percentile([5, 1, 3, 2, 4], 50); // 3
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error('A percentile needs at least one sample.');
  const sorted = [...samples].sort((left, right) => left - right);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/**
 * p50 and p95 of `samples`.
 *
 * @example
 * summarizeLatencies([1, 2, 3, 4]); // { p50: 2, p95: 4, count: 4 }
 */
export function summarizeLatencies(samples: readonly number[]): LatencySummary {
  return { p50: percentile(samples, 50), p95: percentile(samples, 95), count: samples.length };
}
