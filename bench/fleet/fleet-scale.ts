/**
 * Sizes of the fleet benchmark (issue 22). `rounds` rounds, each starting every configuration afresh (new processes,
 * new database). Scaling: per round and configuration a warm-up burst of `warmUpSessions`, then `sessions` sessions
 * started at once, each `toolSteps` steps calling the no-op tool and one step answering; worker counts
 * `workerCounts`, queue polling `pollingMs`; `pauseMs` after the CHECKPOINT before the measured burst. Enqueue
 * overhead: `latencySamples` one-step runs per configuration in all (split over the rounds, each part after
 * `warmUpSamples` unmeasured ones), one at a time, queued with `pollingMs` and `slowPollingMs` and started in place.
 * With `diagnostic`, 1 worker once more with the caller waiting by one status query instead of each handle.
 * `HELIX_BENCH_FLEET_SESSIONS`, `HELIX_BENCH_FLEET_STEPS` and `HELIX_BENCH_FLEET_SAMPLES` override the defaults
 * (128, 10, 60; at `BENCH_SCALE=small` 8, 2, 5: a smoke test, its figures mean nothing).
 *
 * @example
 * const scale: FleetScale = fleetScale();
 */
export interface FleetScale {
  sessions: number;
  toolSteps: number;
  rounds: number;
  warmUpSessions: number;
  workerCounts: readonly number[];
  pollingMs: number;
  slowPollingMs: number;
  latencySamples: number;
  warmUpSamples: number;
  pauseMs: number;
  /** Also measure 1 worker with the caller waiting by one status query (the diagnostic row). */
  diagnostic: boolean;
}

/** A size from `environment[name]`, else `fallback`. */
function size(environment: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = environment[name];
  const value = text === undefined || text === '' ? fallback : Number(text);
  if (Number.isInteger(value) && value >= 1) return value;
  throw new Error(`${name} must be a positive integer.`);
}

/**
 * The sizes for this environment (every child process reads the same ones).
 *
 * @throws Error when a variable is not a positive integer.
 * @example
 * fleetScale({ BENCH_SCALE: 'small' }).sessions; // 8
 */
export function fleetScale(environment: NodeJS.ProcessEnv = process.env): FleetScale {
  const small = environment.BENCH_SCALE === 'small';
  const sessions = size(environment, 'HELIX_BENCH_FLEET_SESSIONS', small ? 8 : 128);
  return {
    sessions,
    toolSteps: size(environment, 'HELIX_BENCH_FLEET_STEPS', small ? 2 : 10),
    rounds: small ? 1 : 3,
    warmUpSessions: small ? 2 : Math.max(1, Math.floor(sessions / 4)),
    workerCounts: small ? [1, 2] : [1, 2, 4],
    pollingMs: 10,
    slowPollingMs: 50,
    latencySamples: size(environment, 'HELIX_BENCH_FLEET_SAMPLES', small ? 5 : 60),
    warmUpSamples: small ? 1 : 5,
    pauseMs: small ? 0 : 500,
    diagnostic: !small,
  };
}
