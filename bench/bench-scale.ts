/**
 * Sizes of the human-in-the-loop benchmarks. `BENCH_SCALE=small` shrinks them for the smoke test (the
 * figures are then only a sign of life, not measurements).
 *
 * @example
 * const scale: HitlBenchScale = hitlBenchScale();
 */
export interface HitlBenchScale {
  /** Sessions measured for each latency (warm wake, bare send→recv, resume, fresh 1-step run). */
  latencySamples: number;
  /** Sessions each footprint child starts (and leaves waiting warm or parked). */
  footprintSessions: number;
  /** Runs a footprint child starts at a time. */
  startConcurrency: number;
  /**
   * Pause between "all sessions waiting" and the quiet window. Postgres publishes a busy connection's
   * transaction counts up to 10 s late (PGSTAT_IDLE_INTERVAL), so the start-up burst needs > 10 s to settle.
   */
  settleMs: number;
  /** Length of the quiet window over which the idle transaction rate is measured. */
  quietWindowMs: number;
}

/**
 * The sizes for `BENCH_SCALE` (`full` unless `small`).
 *
 * @example
 * hitlBenchScale({ BENCH_SCALE: 'small' }).footprintSessions; // 50
 */
export function hitlBenchScale(environment: NodeJS.ProcessEnv = process.env): HitlBenchScale {
  if (environment.BENCH_SCALE === 'small') {
    return { latencySamples: 10, footprintSessions: 50, startConcurrency: 25, settleMs: 1_000, quietWindowMs: 3_000 };
  }
  return { latencySamples: 100, footprintSessions: 2_000, startConcurrency: 25, settleMs: 11_000, quietWindowMs: 20_000 };
}
