import { summarizeLatencies, type LatencySummary } from '../latency-summary.js';
import type { FleetConfiguration, RoundMeasurement } from './fleet-configuration.js';
import type { LatencySample } from './fleet-protocol.js';

/**
 * Throughput of one configuration over its rounds: medians, the range of steps/s, the checks' totals.
 *
 * @example
 * const figures: ScalingFigures = summarizeRounds({ kind: 'local' }, rounds);
 */
export interface ScalingFigures {
  configuration: FleetConfiguration;
  stepsPerSecond: number;
  minStepsPerSecond: number;
  maxStepsPerSecond: number;
  wallMs: number;
  toolCalls: number;
  expectedToolCalls: number;
  /** Sessions per worker in the median round (by steps/s). */
  sessionsPerWorker: number[];
  callerCpuMs: number;
  workerCpuMs: number;
  postgresCpuMs?: number;
  machineBusy?: number;
}

/**
 * One configuration's one-step runs, p50 / p95 of each moment (ms from `execute()`) and of each part between.
 *
 * @example
 * const figures: LatencyFigures = summarizeLatencySamples(configuration, samples);
 */
export interface LatencyFigures {
  configuration: FleetConfiguration;
  returned: LatencySummary;
  dequeued?: LatencySummary;
  completed: LatencySummary;
  result: LatencySummary;
  /** execute() returned → dequeued (queued runs). */
  queueWait?: LatencySummary;
  /** Dequeued (in place: execute() returned) → DBOS completed. */
  run: LatencySummary;
  /** DBOS completed → result() resolved. */
  delivery: LatencySummary;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor((sorted.length - 1) / 2)] as number;
};

const stepsPerSecond = (round: RoundMeasurement): number => round.steps / (round.wallMs / 1_000);

/**
 * The throughput figures of a configuration's rounds.
 *
 * @throws Error when it measured no round.
 * @example
 * const local = summarizeRounds({ kind: 'local' }, rounds);
 */
export function summarizeRounds(configuration: FleetConfiguration, rounds: readonly RoundMeasurement[]): ScalingFigures {
  if (rounds.length === 0) throw new Error('A configuration without rounds has no throughput.');
  const rates = rounds.map(stepsPerSecond);
  const middle = rounds.find((round) => stepsPerSecond(round) === median(rates)) as RoundMeasurement;
  const busy = rounds.flatMap((round) => (round.machineBusy === undefined ? [] : [round.machineBusy]));
  const postgres = rounds.flatMap((round) => (round.postgresCpuMs === undefined ? [] : [round.postgresCpuMs]));
  return {
    configuration,
    stepsPerSecond: median(rates),
    minStepsPerSecond: Math.min(...rates),
    maxStepsPerSecond: Math.max(...rates),
    wallMs: median(rounds.map((round) => round.wallMs)),
    toolCalls: rounds.reduce((sum, round) => sum + round.toolCalls, 0),
    expectedToolCalls: rounds.reduce((sum, round) => sum + round.expectedToolCalls, 0),
    sessionsPerWorker: middle.sessionsPerWorker,
    callerCpuMs: median(rounds.map((round) => round.callerCpuMs)),
    workerCpuMs: median(rounds.map((round) => round.workerCpuMs.reduce((sum, ms) => sum + ms, 0))),
    ...(postgres.length === 0 ? {} : { postgresCpuMs: median(postgres) }),
    ...(busy.length === 0 ? {} : { machineBusy: median(busy) }),
  };
}

/**
 * The latency figures of one configuration's one-step runs.
 *
 * @example
 * const queued = summarizeLatencySamples({ kind: 'queued', workers: 1, pollingMs: 10 }, samples);
 */
export function summarizeLatencySamples(configuration: FleetConfiguration, samples: readonly LatencySample[]): LatencyFigures {
  const dequeued = samples.flatMap((sample) => (sample.dequeuedMs === undefined ? [] : [sample]));
  const queued = dequeued.length === samples.length && samples.length > 0;
  return {
    configuration,
    returned: summarizeLatencies(samples.map((sample) => sample.returnedMs)),
    ...(queued ? { dequeued: summarizeLatencies(dequeued.map((sample) => sample.dequeuedMs as number)) } : {}),
    completed: summarizeLatencies(samples.map((sample) => sample.completedMs)),
    result: summarizeLatencies(samples.map((sample) => sample.resultMs)),
    ...(queued ? { queueWait: summarizeLatencies(dequeued.map((sample) => (sample.dequeuedMs as number) - sample.returnedMs)) } : {}),
    run: summarizeLatencies(samples.map((sample) => sample.completedMs - (queued ? (sample.dequeuedMs as number) : sample.returnedMs))),
    delivery: summarizeLatencies(samples.map((sample) => sample.resultMs - sample.completedMs)),
  };
}

/**
 * Issue 22's fleet targets, each with its measured figure.
 *
 * @example
 * const target: FleetTarget = { label: '…', measured: 1.04, limit: 1, comparison: 'at least', unit: 'ratio', detail: '612 / 589 steps/s' };
 */
export interface FleetTarget {
  label: string;
  measured: number;
  limit: number;
  comparison: 'at least' | 'at most';
  unit: 'ratio' | 'ms';
  detail: string;
}

/**
 * The targets: the 1-worker fleet's steps/s at least the single-process executor's, and a queued one-step run's
 * p50 (`execute()` → `result()`) at most 10 ms above one started in place.
 *
 * @example
 * const targets = fleetTargets(local, oneWorker, inPlace, queued);
 */
export function fleetTargets(local: ScalingFigures, oneWorker: ScalingFigures, inPlace: LatencyFigures, queued: LatencyFigures): FleetTarget[] {
  const pollingMs = queued.configuration.kind === 'queued' ? queued.configuration.pollingMs : 0;
  return [
    {
      label: '1 worker + API process: steps/s vs the single-process executor',
      measured: oneWorker.stepsPerSecond / local.stepsPerSecond,
      limit: 1,
      comparison: 'at least',
      unit: 'ratio',
      detail: `${oneWorker.stepsPerSecond.toFixed(0)} / ${local.stepsPerSecond.toFixed(0)} steps/s`,
    },
    {
      label: `one-step run p50, queued (${pollingMs} ms polling) − started in place`,
      measured: queued.result.p50 - inPlace.result.p50,
      limit: 10,
      comparison: 'at most',
      unit: 'ms',
      detail: `${queued.result.p50.toFixed(1)} − ${inPlace.result.p50.toFixed(1)} ms`,
    },
  ];
}

/**
 * Whether `target` is met.
 *
 * @example
 * targetMet({ label: 'x', measured: 0.9, limit: 1, comparison: 'at least', unit: 'ratio', detail: '' }); // false
 */
export function targetMet(target: FleetTarget): boolean {
  return target.comparison === 'at least' ? target.measured >= target.limit : target.measured <= target.limit;
}
