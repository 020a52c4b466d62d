import { formatTable } from '../../examples/demo/format-table.js';
import type { LatencySummary } from '../latency-summary.js';
import type { FleetConfiguration } from './fleet-configuration.js';
import { targetMet, type FleetTarget, type LatencyFigures, type ScalingFigures } from './fleet-figures.js';

/**
 * The first header cell of the throughput table.
 *
 * @example
 * output.includes(FLEET_TABLE_HEADER); // true once the table is printed
 */
export const FLEET_TABLE_HEADER = 'fleet throughput';

const NONE = '—';
const ratio = (value: number): string => `${value.toFixed(2)}x`;
const seconds = (ms: number): string => (ms / 1_000).toFixed(2);

/**
 * A configuration's name in the tables.
 *
 * @example
 * configurationLabel({ kind: 'queued', workers: 2, pollingMs: 10 }); // '2 workers + API process'
 */
export function configurationLabel(configuration: FleetConfiguration): string {
  if (configuration.kind === 'local') return 'single process (executor, in place)';
  const fleet = `${configuration.workers} worker${configuration.workers === 1 ? '' : 's'} + API process`;
  return configuration.awaitBy === 'status' ? `${fleet}, results by status query (diagnostic)` : fleet;
}

/**
 * Whether `figure` is the 1-worker fleet awaiting each handle (what the targets compare).
 *
 * @example
 * const oneWorker = scaling.find(isOneWorker);
 */
export function isOneWorker(figure: { configuration: FleetConfiguration }): boolean {
  const { configuration } = figure;
  return configuration.kind === 'queued' && configuration.workers === 1 && (configuration.awaitBy ?? 'handle') === 'handle';
}

const processes = (configuration: FleetConfiguration): number => (configuration.kind === 'local' ? 1 : configuration.workers + 1);

/**
 * Steps/s of every configuration (median of the rounds, with the range), the ratios to the single process and to
 * one worker, and what the checks and the CPU counters saw.
 *
 * @example
 * process.stdout.write(`${formatScalingTable(figures, 128, 11)}\n`);
 */
export function formatScalingTable(figures: readonly ScalingFigures[], sessions: number, stepsPerSession: number): string {
  const local = figures.find((figure) => figure.configuration.kind === 'local');
  const oneWorker = figures.find(isOneWorker);
  return formatTable(
    [
      `${FLEET_TABLE_HEADER}, ${sessions} sessions × ${stepsPerSession} steps at once`,
      'processes',
      'steps/s (median)',
      'min – max',
      'wall s',
      'vs single process',
      'vs 1 worker',
      'sessions per worker',
      'tool calls run / expected',
      'CPU s: caller / workers / Postgres',
      'CPU ms/step',
      'machine CPU busy',
    ],
    figures.map((figure) => [
      configurationLabel(figure.configuration),
      processes(figure.configuration),
      figure.stepsPerSecond.toFixed(0),
      `${figure.minStepsPerSecond.toFixed(0)} – ${figure.maxStepsPerSecond.toFixed(0)}`,
      seconds(figure.wallMs),
      local === undefined ? NONE : ratio(figure.stepsPerSecond / local.stepsPerSecond),
      oneWorker === undefined || figure.configuration.kind === 'local' ? NONE : ratio(figure.stepsPerSecond / oneWorker.stepsPerSecond),
      figure.configuration.kind === 'local' ? NONE : figure.sessionsPerWorker.join(' / '),
      `${figure.toolCalls}/${figure.expectedToolCalls}`,
      `${seconds(figure.callerCpuMs)} / ${figure.configuration.kind === 'local' ? NONE : seconds(figure.workerCpuMs)} / ${figure.postgresCpuMs === undefined ? NONE : seconds(figure.postgresCpuMs)}`,
      figure.postgresCpuMs === undefined ? NONE : ((figure.callerCpuMs + figure.workerCpuMs + figure.postgresCpuMs) / (sessions * stepsPerSession)).toFixed(2),
      figure.machineBusy === undefined ? NONE : `${(figure.machineBusy * 100).toFixed(0)}%`,
    ]),
  );
}

const cell = (summary: LatencySummary | undefined): string => (summary === undefined ? NONE : `${summary.p50.toFixed(1)} / ${summary.p95.toFixed(1)}`);

/**
 * The one-step runs of every configuration measured: each moment from `execute()` and each part between.
 *
 * @example
 * process.stdout.write(`${formatLatencyTable([inPlace, queued10, queued50])}\n`);
 */
export function formatLatencyTable(figures: readonly LatencyFigures[]): string {
  const rows: Array<[string, (figure: LatencyFigures) => LatencySummary | undefined]> = [
    ['execute() → it returned', (figure) => figure.returned],
    ['execute() → dequeued by the worker (DBOS)', (figure) => figure.dequeued],
    ['execute() → workflow completed (DBOS)', (figure) => figure.completed],
    ['execute() → result() resolved', (figure) => figure.result],
    ['queue wait: returned → dequeued', (figure) => figure.queueWait],
    ['run: dequeued (in place: returned) → completed', (figure) => figure.run],
    ['result delivery: completed → result()', (figure) => figure.delivery],
  ];
  const column = (figure: LatencyFigures): string =>
    figure.configuration.kind === 'local' ? 'started in place (one process)' : `queued, ${figure.configuration.pollingMs} ms polling (API + 1 worker)`;
  return formatTable(
    ['one-step run, p50 / p95 ms', ...figures.map(column)],
    rows.map(([label, pick]) => [label, ...figures.map((figure) => cell(pick(figure)))]),
  );
}

/**
 * The targets, one line each, the verdict first: PASS or MISS, the target, the measured figure and the limit.
 *
 * @example
 * process.stdout.write(`${formatFleetTargets(targets)}\n`);
 */
export function formatFleetTargets(targets: readonly FleetTarget[]): string {
  const figure = (target: FleetTarget, value: number): string => (target.unit === 'ratio' ? `${value.toFixed(3)}x` : `${value.toFixed(1)} ms`);
  return formatTable(
    ['verdict', 'issue 22 target', 'measured', 'from', 'limit'],
    targets.map((target) => [
      targetMet(target) ? 'PASS' : 'MISS',
      target.label,
      figure(target, target.measured),
      target.detail,
      `${target.comparison === 'at least' ? '>=' : '<='} ${target.unit === 'ratio' ? ratio(target.limit) : `${target.limit} ms`}`,
    ]),
  );
}

/**
 * One line counting the targets met, naming the missed ones.
 *
 * @example
 * formatFleetVerdict(targets); // 'Fleet targets: 1 of 2 PASS; MISS: …'
 */
export function formatFleetVerdict(targets: readonly FleetTarget[]): string {
  const missed = targets.filter((target) => !targetMet(target)).map((target) => target.label);
  return `Fleet targets: ${targets.length - missed.length} of ${targets.length} PASS${missed.length === 0 ? '' : `; MISS: ${missed.join('; ')}`}.`;
}
