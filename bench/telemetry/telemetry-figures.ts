import type { TelemetryConfigurationName } from './telemetry-configurations.js';
import type { TelemetryRunSample } from './telemetry-protocol.js';

/**
 * One configuration's figures over the measured runs: each measure's median and mean, spans and metric records per run,
 * and the V8 heap after the GC before the first and the last run.
 *
 * @example
 * const figures: ConfigurationFigures = { name: 'baseline', runs: 60, measures, spansPerRun: 0, metricRecordsPerRun: 0, heapMb };
 */
export interface ConfigurationFigures {
  name: TelemetryConfigurationName;
  runs: number;
  measures: Record<RunMeasure, { median: number; mean: number }>;
  spansPerRun: number;
  metricRecordsPerRun: number;
  heapMb: { first: number; last: number };
}

/**
 * What is compared per run: wall ms per agent step (`execute()` → `result()`, the "ms/step"), the child's CPU
 * ms per agent step, and the mean start-to-start interval of the tool steps.
 *
 * @example
 * const measure: RunMeasure = 'cpuMsPerStep';
 */
export type RunMeasure = 'msPerStep' | 'cpuMsPerStep' | 'stepIntervalMs';

/** Every measure, in report order. */
export const RUN_MEASURES: readonly RunMeasure[] = ['msPerStep', 'cpuMsPerStep', 'stepIntervalMs'];

/**
 * A configuration's measure against the baseline's, from the paired per-round ratios: their geometric mean, median,
 * 95% confidence interval of the geometric mean, and their round-to-round spread (standard deviation of the log ratio:
 * about the relative standard deviation of one round's ratio).
 *
 * @example
 * const ratio: PairedRatio = { name: 'tracing', measure: 'msPerStep', rounds: 60, geometricMean: 1.02, median: 1.02, low: 1.0, high: 1.04, spread: 0.05 };
 */
export interface PairedRatio {
  name: TelemetryConfigurationName;
  measure: RunMeasure;
  rounds: number;
  geometricMean: number;
  median: number;
  low: number;
  high: number;
  spread: number;
}

/** Issue 23's limit for tracing on: (c)/(a) ms/step. */
export const TRACING_LIMIT = 1.05;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const mean = (values: readonly number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * Student's t quantile for a two-sided 95% interval with `freedom` degrees of freedom (Cornish-Fisher expansion
 * around the normal quantile; within 1% of the table from 5 degrees on).
 *
 * @example
 * tQuantile95(59); // ≈ 2.001
 */
export function tQuantile95(freedom: number): number {
  const z = 1.959964;
  return z + (z ** 3 + z) / (4 * freedom) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * freedom ** 2);
}

/**
 * The figures of one configuration's measured runs (in round order).
 *
 * @throws Error without samples.
 * @example
 * const figures = summarizeConfiguration('tracing', samples);
 */
export function summarizeConfiguration(name: TelemetryConfigurationName, samples: readonly TelemetryRunSample[]): ConfigurationFigures {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (first === undefined || last === undefined) throw new Error(`No run of the "${name}" configuration was measured.`);
  const spans = samples.map(({ emitted }) => emitted.chat + emitted.executeTool + emitted.invokeAgent + emitted.otherSpans);
  const summary = (measure: RunMeasure): { median: number; mean: number } => {
    const values = samples.map((sample) => sample[measure]);
    return { median: median(values), mean: mean(values) };
  };
  return {
    name,
    runs: samples.length,
    measures: { msPerStep: summary('msPerStep'), cpuMsPerStep: summary('cpuMsPerStep'), stepIntervalMs: summary('stepIntervalMs') },
    spansPerRun: mean(spans),
    metricRecordsPerRun: mean(samples.map((sample) => sample.emitted.metricRecords)),
    heapMb: { first: first.heapMb, last: last.heapMb },
  };
}

/**
 * `samples`' `measure` against the baseline's, round by round (both in round order).
 *
 * @throws Error when the two did not run the same rounds, or ran fewer than two.
 * @example
 * const ratio = pairedRatio('noop', 'msPerStep', noop, baseline);
 */
export function pairedRatio(name: TelemetryConfigurationName, measure: RunMeasure, samples: readonly TelemetryRunSample[], baseline: readonly TelemetryRunSample[]): PairedRatio {
  if (samples.length !== baseline.length || samples.length < 2) throw new Error(`The "${name}" runs and the baseline's do not pair up (${samples.length} and ${baseline.length}).`);
  const logs = samples.map((sample, round) => Math.log(sample[measure] / (baseline[round] as TelemetryRunSample)[measure]));
  const center = mean(logs);
  const spread = Math.sqrt(logs.reduce((sum, value) => sum + (value - center) ** 2, 0) / (logs.length - 1));
  const halfWidth = (tQuantile95(logs.length - 1) * spread) / Math.sqrt(logs.length);
  return {
    name,
    measure,
    rounds: logs.length,
    geometricMean: Math.exp(center),
    median: Math.exp(median(logs)),
    low: Math.exp(center - halfWidth),
    high: Math.exp(center + halfWidth),
    spread,
  };
}

/**
 * A target as printed: the verdict, what is judged, the figure and the limit.
 *
 * @example
 * const target: TelemetryTarget = { met: true, label: 'tracing on …', measured: '1.021x', limit: '<= 1.05x' };
 */
export interface TelemetryTarget {
  met: boolean;
  label: string;
  measured: string;
  limit: string;
}

const times = (value: number): string => `${value.toFixed(3)}x`;
const percent = (value: number): string => `±${(value * 100).toFixed(1)}%`;
const described = (ratio: PairedRatio): string => `${times(ratio.geometricMean)} (95% CI ${times(ratio.low)} – ${times(ratio.high)}, spread ${percent(ratio.spread)})`;

/**
 * The two targets. Tracing on: at most 5% wall ms/step over `telemetry: false` (geometric mean of the paired
 * ratios). Tracing off (the no-op path) unmeasurable: the 95% confidence interval of its paired CPU ms/step ratio — the
 * most sensitive figure, steady where the wall clock follows the machine's load — contains 1.000x, and its wall ms/step
 * ratio is nearer 1 than the wall clock's round-to-round spread.
 *
 * @throws Error when a ratio the targets need was not measured.
 * @example
 * const [tracingOn, tracingOff] = telemetryTargets(ratios);
 */
export function telemetryTargets(ratios: readonly PairedRatio[]): [TelemetryTarget, TelemetryTarget] {
  const ratio = (name: TelemetryConfigurationName, measure: RunMeasure): PairedRatio => {
    const found = ratios.find((candidate) => candidate.name === name && candidate.measure === measure);
    if (found === undefined) throw new Error(`The ${measure} ratio of "${name}" was not measured.`);
    return found;
  };
  const [tracing, tracingCpu, noop, noopCpu] = [ratio('tracing', 'msPerStep'), ratio('tracing', 'cpuMsPerStep'), ratio('noop', 'msPerStep'), ratio('noop', 'cpuMsPerStep')];
  return [
    {
      met: tracing.geometricMean <= TRACING_LIMIT,
      label: 'tracing on (c) / telemetry: false (a), ms/step',
      measured: `${described(tracing)}; CPU ${described(tracingCpu)}`,
      limit: `<= ${TRACING_LIMIT.toFixed(2)}x`,
    },
    {
      met: noopCpu.low <= 1 && noopCpu.high >= 1 && Math.abs(Math.log(noop.geometricMean)) < noop.spread,
      label: 'tracing off (b) / telemetry: false (a): unmeasurable',
      measured: `CPU ${described(noopCpu)}; ms/step ${described(noop)}`,
      limit: 'CPU: 95% CI contains 1.000x; ms/step: |log ratio| < spread',
    },
  ];
}
