import { formatTable } from '../../examples/demo/format-table.js';
import { CONFIGURATIONS } from './telemetry-configurations.js';
import { RUN_MEASURES, type ConfigurationFigures, type PairedRatio, type RunMeasure, type TelemetryTarget } from './telemetry-figures.js';

/**
 * The first header cell of the figures table (the smoke test looks for it).
 *
 * @example
 * output.includes(TELEMETRY_TABLE_HEADER); // true once the table is printed
 */
export const TELEMETRY_TABLE_HEADER = 'telemetry configuration';

const ms = (value: number): string => value.toFixed(3);
const times = (value: number): string => `${value.toFixed(3)}x`;

/**
 * Each measure's label in the tables.
 *
 * @example
 * measureLabel('cpuMsPerStep', 20); // 'CPU ms/step (child process)'
 */
export function measureLabel(measure: RunMeasure, toolSteps: number): string {
  if (measure === 'msPerStep') return 'ms/step';
  return measure === 'cpuMsPerStep' ? 'CPU ms/step (child process)' : `step interval ms, steps 1-${toolSteps}`;
}

/**
 * Per configuration: each measure's median (and the wall ms/step's mean), spans and metric records per run, and the
 * V8 heap after GC before the first and the last measured run.
 *
 * @example
 * process.stdout.write(`${formatTelemetryTable(figures, 20)}\n`);
 */
export function formatTelemetryTable(figures: readonly ConfigurationFigures[], toolSteps: number): string {
  const medians = RUN_MEASURES.map((measure) => `${measureLabel(measure, toolSteps)} (median)`);
  return formatTable(
    [TELEMETRY_TABLE_HEADER, 'runs', ...medians, 'ms/step (mean)', 'spans/run', 'metric records/run', 'V8 heap MB, first → last run'],
    figures.map((figure) => [
      CONFIGURATIONS[figure.name].label,
      String(figure.runs),
      ...RUN_MEASURES.map((measure) => ms(figure.measures[measure].median)),
      ms(figure.measures.msPerStep.mean),
      figure.spansPerRun.toFixed(1),
      figure.metricRecordsPerRun.toFixed(1),
      `${figure.heapMb.first.toFixed(1)} → ${figure.heapMb.last.toFixed(1)}`,
    ]),
  );
}

/**
 * Per configuration and measure against the baseline: the paired per-round ratios' geometric mean, median, 95%
 * confidence interval and round-to-round spread, and what the geometric mean means in ms per step (over the baseline's
 * median).
 *
 * @example
 * process.stdout.write(`${formatRatioTable(ratios, baselineFigures, 20)}\n`);
 */
export function formatRatioTable(ratios: readonly PairedRatio[], baseline: ConfigurationFigures, toolSteps: number): string {
  const letter = (ratio: PairedRatio): string => CONFIGURATIONS[ratio.name].label.slice(0, 3);
  const delta = (ratio: PairedRatio): string => {
    const ms = (ratio.geometricMean - 1) * baseline.measures[ratio.measure].median;
    return `${ms >= 0 ? '+' : '-'}${Math.abs(ms).toFixed(3)}`;
  };
  return formatTable(
    ['against (a) telemetry: false, paired by round', 'rounds', 'geometric mean', 'median', '95% CI', 'round-to-round spread (sd)', 'ms/step vs (a)'],
    ratios.map((ratio) => [
      `${letter(ratio)} / (a), ${measureLabel(ratio.measure, toolSteps)}`,
      String(ratio.rounds),
      times(ratio.geometricMean),
      times(ratio.median),
      `${times(ratio.low)} – ${times(ratio.high)}`,
      `±${(ratio.spread * 100).toFixed(1)}%`,
      delta(ratio),
    ]),
  );
}

/**
 * The targets, one line each, the verdict first: PASS or MISS, the target, the measured figure and the limit.
 *
 * @example
 * process.stdout.write(`${formatTelemetryTargets(targets)}\n`);
 */
export function formatTelemetryTargets(targets: readonly TelemetryTarget[]): string {
  return formatTable(
    ['verdict', 'issue 23 target', 'measured', 'limit'],
    targets.map((target) => [target.met ? 'PASS' : 'MISS', target.label, target.measured, target.limit]),
  );
}

/**
 * One line counting the targets met, naming the missed ones.
 *
 * @example
 * formatTelemetryVerdict(targets); // 'Telemetry targets: 2 of 2 PASS.'
 */
export function formatTelemetryVerdict(targets: readonly TelemetryTarget[]): string {
  const missed = targets.filter((target) => !target.met).map((target) => target.label);
  return `Telemetry targets: ${targets.length - missed.length} of ${targets.length} PASS${missed.length === 0 ? '' : `; MISS: ${missed.join('; ')}`}.`;
}
