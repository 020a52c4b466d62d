/**
 * Sizes of the turn-latency comparison: `sessions` fresh sessions per system (each a one-step turn and a second
 * turn on the same session), a burst of `burst` new sessions started at once, and `warmUpSessions` unmeasured
 * sessions (and one unmeasured burst of the same size) before. `HELIX_BENCH_TURN_SESSIONS` and `HELIX_BENCH_TURN_BURST` override
 * the defaults: 50 and 128, or at `BENCH_SCALE=small` 5 and 8 (a smoke test: its figures mean nothing).
 *
 * @example
 * const scale: TurnLatencyScale = turnLatencyScale();
 */
export type TurnLatencyScale = Record<'sessions' | 'burst' | 'warmUpSessions', number>;

/** A size from `environment[name]`, else `fallback`. */
function size(environment: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = environment[name];
  const value = text === undefined || text === '' ? fallback : Number(text);
  if (Number.isInteger(value) && value >= 1) return value;
  throw new Error(`${name} must be a positive integer.`);
}

/**
 * The sizes for this environment.
 *
 * @throws Error when a variable is not a positive integer.
 * @example
 * turnLatencyScale({ BENCH_SCALE: 'small' }).burst; // 8
 */
export function turnLatencyScale(environment: NodeJS.ProcessEnv = process.env): TurnLatencyScale {
  const small = environment.BENCH_SCALE === 'small';
  return {
    sessions: size(environment, 'HELIX_BENCH_TURN_SESSIONS', small ? 5 : 50),
    burst: size(environment, 'HELIX_BENCH_TURN_BURST', small ? 8 : 128),
    warmUpSessions: small ? 1 : 5,
  };
}
