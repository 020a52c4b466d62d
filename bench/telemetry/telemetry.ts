import type { BenchDatabase, SiblingDatabase } from '../bench-database.js';
import { BenchChild } from '../bench-child.js';
import { machineDescription } from '../fleet/machine-load.js';
import { BREAKDOWN_CONFIGURATIONS, TELEMETRY_CONFIGURATIONS, type TelemetryConfigurationName } from './telemetry-configurations.js';
import { pairedRatio, RUN_MEASURES, summarizeConfiguration, telemetryTargets, type ConfigurationFigures, type PairedRatio, type TelemetryTarget } from './telemetry-figures.js';
import { TELEMETRY_PROTOCOL, type TelemetryCommand, type TelemetryReply, type TelemetryRunSample } from './telemetry-protocol.js';
import { telemetryScale, type TelemetryScale } from './telemetry-scale.js';
import { formatRatioTable, formatTelemetryTable, formatTelemetryTargets, formatTelemetryVerdict } from './telemetry-tables.js';

/**
 * What the telemetry part measured: each configuration's figures, the ratios to the baseline, the targets.
 *
 * @example
 * const { targets } = await measureTelemetry(database);
 */
export interface TelemetryReport {
  figures: ConfigurationFigures[];
  ratios: PairedRatio[];
  targets: TelemetryTarget[];
}

type TelemetryChild = BenchChild<TelemetryCommand, TelemetryReply>;
type Samples = Map<TelemetryConfigurationName, TelemetryRunSample[]>;

const say = (text = ''): void => void process.stdout.write(`${text}\n`);

/**
 * The orders the rounds cycle through: every rotation of `names` and its reverse (for three: all six permutations), so
 * each configuration runs in each position, and before and after each other, equally often.
 *
 * @example
 * roundOrders(['a', 'b', 'c']).length; // 6
 */
export function roundOrders<T>(names: readonly T[]): T[][] {
  const rotations = names.map((_, shift) => [...names.slice(shift), ...names.slice(0, shift)]);
  return [...rotations, ...rotations.map((order) => [...order].reverse())];
}

/**
 * Issue 23's telemetry overhead: ms per agent step of multi-step runs (scripted model without delay, one no-op server
 * tool call per step, then an answer) under `telemetry: false`, the default with no SDK registered (the no-op path)
 * and tracing on (SDK tracer provider with an in-memory exporter and `HelixIdGenerator`, SDK meter), and with
 * `HELIX_BENCH_TELEMETRY_BREAKDOWN=1` which part of tracing on costs what. Each configuration runs in its own child
 * process and database, its executor constructed with that option (the telemetry is process-wide, and tracing leaves
 * process-wide state behind); `HELIX_BENCH_TELEMETRY_ONE_PROCESS=1` hosts all in one child that switches the process's
 * telemetry before each run instead. Rounds of one run per configuration, the order cycling (see `roundOrders`), one
 * run at a time on the server. Ratios are paired by round. Prints the figures, the ratios and the two targets as PASS/MISS
 * lines (a MISS does not fail the run; the verdict opens the line).
 *
 * @throws Error when a child fails, or a run did not emit exactly what its configuration must.
 * @example
 * const report = await measureTelemetry(database);
 */
export async function measureTelemetry(database: BenchDatabase): Promise<TelemetryReport> {
  const scale = telemetryScale();
  const startedAt = performance.now();
  const names = [...TELEMETRY_CONFIGURATIONS, ...(scale.breakdown ? BREAKDOWN_CONFIGURATIONS : [])];
  const layout = scale.processPerConfiguration
    ? 'each in its own child process (its executor constructed with that option)'
    : 'in one child process that switches the process-wide telemetry before each run';
  say(
    [
      `\nTelemetry overhead (issue 23): runs of ${scale.toolSteps + 1} steps (${scale.toolSteps} no-op server tool calls, then an answer; scripted model, no delay)`,
      `under ${names.length} configurations, ${layout}; ${scale.warmUpRuns} warm-up run(s) each, then ${scale.rounds} rounds of one run per configuration`,
      `(order cycling through ${roundOrders(names).length} orders; a full GC before each run). Machine: ${machineDescription()}…`,
    ].join(' '),
  );
  const samples = await collect(database, names, scale);
  const of = (name: TelemetryConfigurationName): TelemetryRunSample[] => samples.get(name) ?? [];
  const figures = names.map((name) => summarizeConfiguration(name, of(name)));
  const ratios = names.slice(1).flatMap((name) => RUN_MEASURES.map((measure) => pairedRatio(name, measure, of(name), of('baseline'))));
  const targets = telemetryTargets(ratios);
  say(`\n${formatTelemetryTable(figures, scale.toolSteps)}\n`);
  say(`${formatRatioTable(ratios, figures[0] as ConfigurationFigures, scale.toolSteps)}\n`);
  say(`${formatTelemetryTargets(targets)}\n`);
  say(formatTelemetryVerdict(targets));
  say();
  say(
    [
      `ms/step: wall time of a run (execute() → result(), its start and finish included) over its ${scale.toolSteps + 1} steps; CPU ms/step: the child's user + system time over the same span;`,
      `step interval: mean start-to-start of the model calls of steps 1-${scale.toolSteps}. Ratios: each round's figure over the same round's (a); geometric mean and median over the rounds,`,
      '95% confidence interval of the geometric mean (t), spread = standard deviation of the log ratio (about one round\'s relative noise).',
      'Spans and metric records are counted after every run, then dropped; a run that did not emit what its configuration must (with spans: a chat span per step,',
      'an execute_tool span per tool call, one invoke_agent span) fails the bench.',
    ].join(' '),
  );
  say(`Telemetry part: ${((performance.now() - startedAt) / 1_000).toFixed(0)} s.`);
  return { figures, ratios, targets };
}

/** Start the child(ren), run the rounds; every child is stopped and its database dropped. */
async function collect(database: BenchDatabase, names: readonly TelemetryConfigurationName[], scale: TelemetryScale): Promise<Samples> {
  const groups = scale.processPerConfiguration ? names.map((name) => [name]) : [[...names]];
  const siblings: SiblingDatabase[] = [];
  const children = new Map<TelemetryConfigurationName, TelemetryChild>();
  const started: TelemetryChild[] = [];
  const profileDir = process.env.HELIX_BENCH_CPU_PROF;
  // HELIX_BENCH_CPU_PROF=<dir> writes a V8 CPU profile of each child there (named by pid), sampled every
  // HELIX_BENCH_CPU_PROF_INTERVAL µs (V8's default: 1000).
  const interval = process.env.HELIX_BENCH_CPU_PROF_INTERVAL;
  const profiling = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, ...(interval === undefined ? [] : [`--cpu-prof-interval=${interval}`])];
  let failed = true;
  const startChild = async (hosted: TelemetryConfigurationName[]): Promise<void> => {
    const sibling = await database.createSibling();
    siblings.push(sibling);
    const child = await BenchChild.start<TelemetryCommand, TelemetryReply>({
      name: `The telemetry child (${hosted.join(', ')})`,
      script: 'bench/telemetry/telemetry-child.ts',
      args: [hosted.join(',')],
      nodeOptions: ['--expose-gc', ...profiling],
      env: { ...process.env, BENCH_DATABASE_URL: sibling.url },
      protocol: TELEMETRY_PROTOCOL,
    });
    started.push(child);
    for (const name of hosted) children.set(name, child);
  };
  try {
    const failure = (await Promise.allSettled(groups.map(startChild))).find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
    const samples: Samples = new Map(names.map((name) => [name, []]));
    const orders = roundOrders(names);
    for (let round = 0; round < scale.rounds; round += 1) {
      for (const name of orders[round % orders.length] ?? []) {
        const child = children.get(name) as TelemetryChild;
        samples.get(name)?.push((await child.ask({ type: 'run', configuration: name, index: round }, 'run')).sample);
      }
      if ((round + 1) % 10 === 0 || round + 1 === scale.rounds) say(`  round ${round + 1} of ${scale.rounds} done`);
    }
    failed = false;
    return samples;
  } finally {
    await Promise.all(started.map((child) => child.stop(failed)));
    await Promise.allSettled(siblings.map((sibling) => sibling.drop()));
  }
}
