import pg from 'pg';
import type { BenchDatabase } from '../bench-database.js';
import { backendCpuMs, readBackendCpu } from './backend-cpu.js';
import { busyShare, readCpuTicks } from './machine-load.js';
import { FleetProcess } from './fleet-process.js';
import type { AwaitBy, LatencySample, RunOutcome } from './fleet-protocol.js';
import type { FleetScale } from './fleet-scale.js';

/**
 * One set-up measured: today's single-process executor (runs started in place), or an API process with `workers`
 * worker processes polling the queue every `pollingMs`; `awaitBy` how the caller waits for a burst (default
 * `handle`: each handle's `result()`).
 *
 * @example
 * const configuration: FleetConfiguration = { kind: 'queued', workers: 2, pollingMs: 10 };
 */
export type FleetConfiguration = ({ kind: 'local' } | { kind: 'queued'; workers: number; pollingMs: number }) & { awaitBy?: AwaitBy };

/**
 * One measured round: `sessions` multi-step sessions started at once, checked (every run completed in the expected
 * steps, every session ran exactly its tool calls once over all workers).
 *
 * @example
 * const round: RoundMeasurement = { wallMs: 2300, steps: 1408, toolCalls: 1280, expectedToolCalls: 1280, sessionsPerWorker: [64, 64], callerCpuMs: 900, workerCpuMs: [1400, 1380] };
 */
export interface RoundMeasurement {
  wallMs: number;
  /** Agent steps run (model calls: the tool steps and the answering step of every session). */
  steps: number;
  toolCalls: number;
  expectedToolCalls: number;
  /** Sessions whose tools ran in each worker (the single process: one entry). */
  sessionsPerWorker: number[];
  /** CPU time of the process that started the runs (the API process, or the single process). */
  callerCpuMs: number;
  /** CPU time of each worker during the round (none for the single process). */
  workerCpuMs: number[];
  /** CPU time of the Postgres backends of the configuration's database during the round, when readable (same machine, Linux). */
  postgresCpuMs?: number;
  /** Share of the machine's CPU time busy during the round (Linux), undefined elsewhere. */
  machineBusy?: number;
}

/**
 * What one configuration measured in one start of its processes: its round (after an unmeasured warm-up burst;
 * `undefined` when it ran none) and its one-step runs (after unmeasured ones).
 *
 * @example
 * const measured: ConfigurationMeasurement = { configuration: { kind: 'local' }, latency: samples };
 */
export interface ConfigurationMeasurement {
  configuration: FleetConfiguration;
  round?: RoundMeasurement;
  latency: LatencySample[];
}

/**
 * What to measure in one start of a configuration: a round or not, and how many one-step runs.
 *
 * @example
 * const plan: ConfigurationPlan = { round: true, latencySamples: 20 };
 */
export interface ConfigurationPlan {
  round: boolean;
  latencySamples: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Start `configuration`'s child processes on a fresh database of the benchmark's server and measure `plan`: first
 * the one-step runs (after unmeasured ones), then a warm-up burst and the measured round (a CHECKPOINT and a pause
 * before it). Every child is stopped and the database dropped at the end.
 *
 * @throws Error when a child fails, or a run or a session's tool calls are not what the script asks for.
 * @example
 * const measured = await measureConfiguration(database, { kind: 'queued', workers: 1, pollingMs: 10 }, { round: true, latencySamples: 20 }, scale);
 */
export async function measureConfiguration(database: BenchDatabase, configuration: FleetConfiguration, plan: ConfigurationPlan, scale: FleetScale): Promise<ConfigurationMeasurement> {
  const sibling = await database.createSibling();
  const children: FleetProcess[] = [];
  let failed = true;
  try {
    const { caller, workers } = await startChildren(sibling.url, configuration, scale, children);
    const toolRunners = configuration.kind === 'local' ? [caller] : workers;
    const measured: ConfigurationMeasurement = { configuration, latency: [] };
    if (plan.latencySamples > 0) {
      await caller.ask({ type: 'latency', label: 'latency-warm-up', samples: scale.warmUpSamples }, 'latency');
      measured.latency = (await caller.ask({ type: 'latency', label: 'latency', samples: plan.latencySamples }, 'latency')).samples;
    }
    if (plan.round) {
      const awaitBy = configuration.awaitBy ?? 'handle';
      await runRound(sibling.url, caller, toolRunners, { label: 'warm-up', sessions: scale.warmUpSessions, awaitBy }, scale.toolSteps);
      await checkpoint(database);
      await sleep(scale.pauseMs);
      measured.round = await runRound(sibling.url, caller, toolRunners, { label: 'round', sessions: scale.sessions, awaitBy }, scale.toolSteps);
    }
    failed = false;
    return measured;
  } finally {
    await Promise.all(children.map((child) => child.stop(failed)));
    await sibling.drop();
  }
}

/** The caller and the workers: the first worker alone (it creates the schemas and the queue), then the others and the API process. */
async function startChildren(
  databaseUrl: string,
  configuration: FleetConfiguration,
  scale: FleetScale,
  children: FleetProcess[],
): Promise<{ caller: FleetProcess; workers: FleetProcess[] }> {
  const started = async (child: Promise<FleetProcess>): Promise<FleetProcess> => {
    const running = await child;
    children.push(running);
    return running;
  };
  if (configuration.kind === 'local') return { caller: await started(FleetProcess.start({ role: 'local', databaseUrl, executorId: 'local' })), workers: [] };
  // Each worker takes at most its share of a round, so every session of a round runs at once in every configuration.
  const workerConcurrency = Math.ceil(scale.sessions / configuration.workers);
  const worker = (index: number): Promise<FleetProcess> =>
    started(FleetProcess.start({ role: 'worker', databaseUrl, executorId: `worker-${index}`, pollingMs: configuration.pollingMs, workerConcurrency }));
  const first = await worker(1);
  const others = Array.from({ length: configuration.workers - 1 }, (_, index) => worker(index + 2));
  const results = await Promise.allSettled([started(FleetProcess.start({ role: 'api', databaseUrl, executorId: 'api' })), ...others]);
  const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
  const [caller, ...rest] = results.map((result) => (result as PromiseFulfilledResult<FleetProcess>).value);
  return { caller: caller as FleetProcess, workers: [first, ...rest] };
}

/** One burst on `databaseUrl`, checked; the workers' CPU counters are reset right before it. */
async function runRound(
  databaseUrl: string,
  caller: FleetProcess,
  toolRunners: FleetProcess[],
  burst: { label: string; sessions: number; awaitBy: AwaitBy },
  toolSteps: number,
): Promise<RoundMeasurement> {
  const { label, sessions } = burst;
  await Promise.all(toolRunners.map((runner) => runner.ask({ type: 'counts', label: 'before' }, 'counts')));
  const backendsBefore = await readBackendCpu(databaseUrl);
  const before = readCpuTicks();
  const ran = await caller.ask({ type: 'burst', ...burst }, 'burst');
  const machineBusy = busyShare(before, readCpuTicks());
  const postgresCpuMs = backendCpuMs(backendsBefore, await readBackendCpu(databaseUrl));
  const counts = await Promise.all(toolRunners.map((runner) => runner.ask({ type: 'counts', label }, 'counts')));
  const toolCalls = checkRound(label, sessions, toolSteps, ran.outcomes, counts.map((count) => count.toolCalls));
  return {
    wallMs: ran.wallMs,
    steps: ran.outcomes.reduce((sum, outcome) => sum + outcome.stepCount, 0),
    toolCalls,
    expectedToolCalls: sessions * toolSteps,
    sessionsPerWorker: counts.map((count) => Object.keys(count.toolCalls).length),
    callerCpuMs: ran.cpuMs,
    workerCpuMs: caller === toolRunners[0] ? [] : counts.map((count) => count.cpuMs),
    ...(machineBusy === undefined ? {} : { machineBusy }),
    ...(postgresCpuMs === undefined ? {} : { postgresCpuMs }),
  };
}

/**
 * The tool calls of a round, once checked: `sessions` runs completed in `toolSteps` + 1 steps each, and every session
 * ran exactly `toolSteps` tool calls over all processes (none of another session of the round).
 */
function checkRound(label: string, sessions: number, toolSteps: number, outcomes: RunOutcome[], counts: Array<Record<string, number>>): number {
  if (outcomes.length !== sessions) throw new Error(`Round ${label}: ${outcomes.length} results for ${sessions} sessions.`);
  const expected = new Set(outcomes.map((outcome) => outcome.sessionId));
  for (const outcome of outcomes) {
    if (outcome.status !== 'completed' || outcome.stepCount !== toolSteps + 1) {
      throw new Error(`Round ${label}: session ${outcome.sessionId} ended ${outcome.status} after ${outcome.stepCount} steps (expected completed after ${toolSteps + 1}).`);
    }
  }
  const totals = new Map<string, number>();
  for (const count of counts) for (const [sessionId, calls] of Object.entries(count)) totals.set(sessionId, (totals.get(sessionId) ?? 0) + calls);
  for (const sessionId of expected) {
    const calls = totals.get(sessionId) ?? 0;
    if (calls !== toolSteps) throw new Error(`Round ${label}: session ${sessionId} ran ${calls} tool calls instead of ${toolSteps}.`);
  }
  const stray = [...totals.keys()].find((sessionId) => !expected.has(sessionId));
  if (stray !== undefined) throw new Error(`Round ${label}: tool calls ran for ${stray}, which the round did not start.`);
  return [...totals.values()].reduce((sum, calls) => sum + calls, 0);
}

/** Write the dirty pages out (on the benchmark's own database), so a round does not pay for earlier ones. */
async function checkpoint(database: BenchDatabase): Promise<void> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query('CHECKPOINT').finally(() => client.end());
}
