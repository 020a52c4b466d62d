import { availableParallelism } from 'node:os';
import type { BenchDatabase } from '../bench-database.js';
import { measureConfiguration, type ConfigurationPlan, type FleetConfiguration, type RoundMeasurement } from './fleet-configuration.js';
import { fleetTargets, summarizeLatencySamples, summarizeRounds, type FleetTarget, type LatencyFigures, type ScalingFigures } from './fleet-figures.js';
import type { LatencySample } from './fleet-protocol.js';
import { fleetScale } from './fleet-scale.js';
import { configurationLabel, formatFleetTargets, formatFleetVerdict, formatLatencyTable, formatScalingTable, isOneWorker } from './fleet-tables.js';
import { machineDescription } from './machine-load.js';

/**
 * What the fleet part measured: throughput per configuration, the one-step runs, the targets.
 *
 * @example
 * const { targets } = await measureFleet(database);
 */
export interface FleetReport {
  scaling: ScalingFigures[];
  latency: LatencyFigures[];
  targets: FleetTarget[];
}

const say = (text = ''): void => void process.stdout.write(`${text}\n`);

/**
 * Issue 22's fleet benchmark. Scaling: rounds of `sessions` multi-step sessions started at once (scripted model, one
 * no-op tool call per step, then an answer) on today's single-process executor (runs started in place) and on a
 * fleet of one API process (it enqueues every run and awaits every result) with 1, 2 and 4 worker processes; each
 * round is checked (every run completed, every session ran its tool calls exactly once over all processes).
 * Enqueue overhead: one-step runs one at a time, `execute()` → `result()`, started in place against queued (API
 * process + 1 worker) at two queue polling intervals. Diagnostic (full size): the 1-worker fleet with the caller
 * waiting by one DBOS status query instead of each handle. Each configuration runs in its own child processes and
 * fresh database on the benchmark's server, one at a time; each round starts every configuration afresh, the order
 * rotating, so the machine's load drifts over all alike. Prints the tables and the targets as PASS/MISS lines (a
 * MISS does not fail the run; the verdict opens the line).
 *
 * @throws Error when a child fails or a round's runs or tool calls are not what the script asks for.
 * @example
 * const report = await measureFleet(database);
 */
export async function measureFleet(database: BenchDatabase): Promise<FleetReport> {
  const scale = fleetScale();
  const startedAt = performance.now();
  const stepsPerSession = scale.toolSteps + 1;
  const samplesPerRound = Math.ceil(scale.latencySamples / scale.rounds);
  say(
    `\nFleet (issue 22): ${scale.sessions} sessions of ${stepsPerSession} steps (${scale.toolSteps} no-op tool calls, then an answer; scripted model) started at once on the single-process executor and on an API process with ${scale.workerCounts.join(', ')} worker(s) (queue polling ${scale.pollingMs} ms); ${samplesPerRound * scale.rounds} one-step runs one at a time, in place and queued (${scale.pollingMs} and ${scale.slowPollingMs} ms polling). ${scale.rounds} round(s): each starts every configuration afresh (new processes, new database; order rotating) for one warm-up and one measured burst and ${samplesPerRound} one-step runs. Machine: ${machineDescription()}…`,
  );
  const queued = (workers: number, pollingMs: number): FleetConfiguration => ({ kind: 'queued', workers, pollingMs });
  const plans: Array<{ configuration: FleetConfiguration; plan: ConfigurationPlan }> = [
    { configuration: { kind: 'local' }, plan: { round: true, latencySamples: samplesPerRound } },
    ...scale.workerCounts.map((workers) => ({ configuration: queued(workers, scale.pollingMs), plan: { round: true, latencySamples: workers === 1 ? samplesPerRound : 0 } })),
    ...(scale.diagnostic ? [{ configuration: { ...queued(1, scale.pollingMs), awaitBy: 'status' as const }, plan: { round: true, latencySamples: 0 } }] : []),
    { configuration: queued(1, scale.slowPollingMs), plan: { round: false, latencySamples: samplesPerRound } },
  ];
  const rounds = plans.map((): RoundMeasurement[] => []);
  const latencies = plans.map((): LatencySample[] => []);
  for (let round = 0; round < scale.rounds; round += 1) {
    const began = performance.now();
    for (let turn = 0; turn < plans.length; turn += 1) {
      const index = (round + turn) % plans.length;
      const { configuration, plan } = plans[index] as (typeof plans)[number];
      const measured = await measureConfiguration(database, configuration, plan, scale);
      if (measured.round !== undefined) rounds[index]?.push(measured.round);
      latencies[index]?.push(...measured.latency);
    }
    say(`  round ${round + 1} of ${scale.rounds} done in ${((performance.now() - began) / 1_000).toFixed(1)} s`);
  }

  const scaling = plans.flatMap(({ configuration, plan }, index) => (plan.round ? [summarizeRounds(configuration, rounds[index] ?? [])] : []));
  const latency = plans.flatMap(({ configuration, plan }, index) => (plan.latencySamples > 0 ? [summarizeLatencySamples(configuration, latencies[index] ?? [])] : []));
  const [inPlace, queuedFast, queuedSlow] = latency as [LatencyFigures, LatencyFigures, LatencyFigures];
  const localScaling = scaling.find((figure) => figure.configuration.kind === 'local');
  const oneWorker = scaling.find(isOneWorker);
  if (localScaling === undefined || oneWorker === undefined) throw new Error('The fleet part needs the single process and 1 worker measured.');
  const targets = fleetTargets(localScaling, oneWorker, inPlace, queuedFast);
  say(`\n${formatScalingTable(scaling, scale.sessions, stepsPerSession)}\n`);
  say(`${formatLatencyTable(latency)}\n`);
  say(`${formatFleetTargets(targets)}\n`);
  say(formatFleetVerdict(targets));
  say();
  for (const line of notes(scaling, inPlace, queuedFast, queuedSlow)) say(line);
  say(`Fleet part: ${((performance.now() - startedAt) / 1_000).toFixed(0)} s.`);
  return { scaling, latency, targets };
}

/** What the figures say about scaling and polling, computed from them. */
function notes(scaling: readonly ScalingFigures[], inPlace: LatencyFigures, queued: LatencyFigures, slow: LatencyFigures): string[] {
  const cores = availableParallelism();
  const oneWorker = scaling.find(isOneWorker);
  const more = scaling.filter((figure) => figure.configuration.kind === 'queued' && figure.configuration.workers > 1);
  const pollingMs = (figure: LatencyFigures): number => (figure.configuration.kind === 'queued' ? figure.configuration.pollingMs : 0);
  const queueWait = (figure: LatencyFigures): number => figure.queueWait?.p50 ?? Number.NaN;
  const lines = [
    `Steps/s: agent steps (model calls, tool steps and answers) of a round over its wall time, from the first execute() to the last result() in the calling process; median of the rounds. CPU: user + system time, medians over the rounds, of the calling process, of all workers together and of the Postgres backends of the configuration's database (its checkpointer and WAL writer left out); machine CPU busy: /proc/stat over the round (Postgres and anything else running included).`,
  ];
  if (oneWorker !== undefined && more.length > 0) {
    const scaled = more.map((figure) => `${configurationLabel(figure.configuration)} ${(figure.stepsPerSecond / oneWorker.stepsPerSecond).toFixed(2)}x`).join(', ');
    lines.push(
      `Scaling against 1 worker: ${scaled}. This machine has ${cores} cores; the workers, the API process and Postgres share them, so past ${cores} busy processes more workers add no CPU: those figures measure what sharing costs, not how a fleet on more machines scales.`,
    );
  }
  const diagnostic = scaling.find((figure) => figure.configuration.awaitBy === 'status');
  if (oneWorker !== undefined && diagnostic !== undefined) {
    const cpu = (figure: ScalingFigures): string => `caller ${(figure.callerCpuMs / 1_000).toFixed(2)} s, Postgres ${figure.postgresCpuMs === undefined ? '—' : `${(figure.postgresCpuMs / 1_000).toFixed(2)} s`}`;
    lines.push(
      `Diagnostic: the same 1-worker fleet with the caller waiting by one DBOS status query for all open runs every 20 ms (then reading each result once) instead of each handle's result(): ${diagnostic.stepsPerSecond.toFixed(0)} steps/s, ${(diagnostic.stepsPerSecond / oneWorker.stepsPerSecond).toFixed(2)}x the 1-worker figure (${cpu(diagnostic)}, against ${cpu(oneWorker)}). The difference is what waiting through the handles costs beyond that query: the handles share one status watch per process (src/executor/remote-result.ts: one DBOS query for the ended ones among all awaited runs every 1 ms + 1 ms per run, at most 20 ms) and each checks the store for a human wait when it starts and once a second (src/executor/agent-handle.ts).`,
    );
  }
  lines.push(
    `Queue polling: the queue wait p50 is ${queueWait(queued).toFixed(1)} ms at ${pollingMs(queued)} ms polling and ${queueWait(slow).toFixed(1)} ms at ${pollingMs(slow)} ms (+${(queueWait(slow) - queueWait(queued)).toFixed(1)} ms; an enqueue falls at a random point of the interval, so half the interval's growth, ${((pollingMs(slow) - pollingMs(queued)) / 2).toFixed(0)} ms, is what polling alone adds).`,
    `Result delivery (DBOS completed → result() resolved): p50 ${queued.delivery.p50.toFixed(1)} ms queued (the API process learns of the end from its shared status watch) against ${inPlace.delivery.p50.toFixed(1)} ms in place (the DBOS handle's own promise). DBOS's completion times are its database clock in whole ms.`,
  );
  return lines;
}
