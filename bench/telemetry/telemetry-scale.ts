/**
 * Sizes of the telemetry-overhead benchmark: `rounds` rounds, each one measured run per configuration (the order
 * cycling through all six permutations of the three); every run is one session of `toolSteps` steps calling a no-op
 * server tool, then one answering; `warmUpRuns` unmeasured runs per configuration before. `HELIX_BENCH_TELEMETRY_ROUNDS`
 * and `HELIX_BENCH_TELEMETRY_STEPS` override the defaults: 60 and 20, or at `BENCH_SCALE=small` 6 and 3 (a smoke test:
 * its figures mean nothing). Each configuration has its own child process unless `HELIX_BENCH_TELEMETRY_ONE_PROCESS=1`
 * (one child switching the process-wide telemetry before each run: a cross-check); `HELIX_BENCH_TELEMETRY_BREAKDOWN=1`
 * measures the breakdown's three configurations too (the order then cycles through every rotation of the six and its
 * reverse).
 *
 * @example
 * const scale: TelemetryScale = telemetryScale();
 */
export interface TelemetryScale {
  rounds: number;
  toolSteps: number;
  warmUpRuns: number;
  /** One child process per configuration (its executor constructed with that option), else one for all. */
  processPerConfiguration: boolean;
  /** Also the SDK tracer alone, the SDK meter alone and the API's no-op tracer injected. */
  breakdown: boolean;
}

/** A size from `environment[name]`, else `fallback`. */
function size(environment: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = environment[name];
  const value = text === undefined || text === '' ? fallback : Number(text);
  if (Number.isInteger(value) && value >= 1) return value;
  throw new Error(`${name} must be a positive integer.`);
}

/**
 * The sizes for this environment (the child reads the same ones).
 *
 * @throws Error when a variable is not a positive integer.
 * @example
 * telemetryScale({ BENCH_SCALE: 'small' }).rounds; // 6
 */
export function telemetryScale(environment: NodeJS.ProcessEnv = process.env): TelemetryScale {
  const small = environment.BENCH_SCALE === 'small';
  return {
    rounds: size(environment, 'HELIX_BENCH_TELEMETRY_ROUNDS', small ? 6 : 60),
    toolSteps: size(environment, 'HELIX_BENCH_TELEMETRY_STEPS', small ? 3 : 20),
    warmUpRuns: small ? 1 : 5,
    processPerConfiguration: environment.HELIX_BENCH_TELEMETRY_ONE_PROCESS !== '1',
    breakdown: environment.HELIX_BENCH_TELEMETRY_BREAKDOWN === '1',
  };
}
