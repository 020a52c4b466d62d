/**
 * Sizes of the side-by-side comparison, from the environment: `HELIX_BENCH_STEPS` (tool steps per session,
 * default 200), `HELIX_BENCH_SESSIONS` (measured sessions per system, default 3), `HELIX_BENCH_SETTLE_MS`
 * (wait before reading `pg_stat_database`, default 11 000) and `HELIX_BENCH_IDLE_MS` (window measuring the
 * idle transaction rate, default 10 000). `BENCH_SCALE=small` changes the defaults to 8 steps, 1 session,
 * 1 s and 1 s (a smoke test: its figures mean nothing).
 *
 * @example
 * const scale: SideBySideScale = sideBySideScale();
 */
export interface SideBySideScale {
  /** Tool steps of a measured session (each session then answers with text: `steps + 1` model calls). */
  steps: number;
  /** Measured sessions per system; the figures are their medians. */
  sessions: number;
  /** Tool steps of the unmeasured warm-up session. */
  warmUpSteps: number;
  /** Steps in the early window (1..window) and in the late one (steps - window + 1..steps). */
  window: number;
  /**
   * Pause before each `pg_stat_database` read. A busy backend publishes its transaction counts up to 10 s
   * late (PGSTAT_IDLE_INTERVAL), so a count is complete only > 10 s after the activity stopped.
   */
  settleMs: number;
  /** Window over which a system's idle transaction rate (its pollers) is measured, to take it out. */
  idleWindowMs: number;
}

const positiveInteger = (value: string | undefined, fallback: number, name: string): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer.`);
  return parsed;
};

/**
 * The sizes for this environment.
 *
 * @throws Error when a variable is not a non-negative integer, or there are fewer than 2 steps or no sessions.
 * @example
 * sideBySideScale({ HELIX_BENCH_STEPS: '50' }).window; // 20
 */
export function sideBySideScale(environment: NodeJS.ProcessEnv = process.env): SideBySideScale {
  const small = environment.BENCH_SCALE === 'small';
  const steps = positiveInteger(environment.HELIX_BENCH_STEPS, small ? 8 : 200, 'HELIX_BENCH_STEPS');
  const sessions = positiveInteger(environment.HELIX_BENCH_SESSIONS, small ? 1 : 3, 'HELIX_BENCH_SESSIONS');
  const settleMs = positiveInteger(environment.HELIX_BENCH_SETTLE_MS, small ? 1_000 : 11_000, 'HELIX_BENCH_SETTLE_MS');
  const idleWindowMs = positiveInteger(environment.HELIX_BENCH_IDLE_MS, small ? 1_000 : 10_000, 'HELIX_BENCH_IDLE_MS');
  if (steps < 2 || sessions < 1) throw new Error('The side-by-side benchmark needs HELIX_BENCH_STEPS ≥ 2 and HELIX_BENCH_SESSIONS ≥ 1.');
  return { steps, sessions, warmUpSteps: Math.min(20, steps), window: Math.min(20, Math.floor(steps / 2)), settleMs, idleWindowMs };
}
