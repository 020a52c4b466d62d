/**
 * The moves of a human-in-the-loop drill: start runs of the HITL agent in a worker, wait until they block in
 * their wait for a human, recover or resume them in other workers, and collect each session's outcome.
 * Every wait is bounded and fails with the worker's output.
 */
import type { AgentResult } from '../../../src/types/result.js';
import type { DrillEnvironment } from '../support/drill-environment.js';
import { DRILL_TIMEOUTS } from '../support/drill-flow.js';
import { waitUntil } from '../support/durable-probes.js';
import type { WorkerProcess } from '../support/worker-process.js';
import type { WorkerConfig, WorkerMode } from '../worker/worker-config.js';
import { claimedAfterRecovery, waitingForHumans } from './hitl-probes.js';

/**
 * A run a worker started (or resumed).
 *
 * @example
 * const { runId, workflowId }: HitlRun = started.runs['kill-client'];
 */
export interface HitlRun {
  sessionId: string;
  runId: string;
  workflowId: string;
}

/**
 * Worker options the HITL drills vary.
 *
 * @example
 * const options: HitlWorkerOptions = { hitlWarmWindowMs: 500, applicationVersion: 'v1' };
 */
export type HitlWorkerOptions = Pick<WorkerConfig, 'hitlWarmWindowMs' | 'applicationVersion' | 'messageHookDelayMs'>;

/**
 * A worker and the runs it started, by session id.
 *
 * @example
 * const { worker, runs } = await startHitlRuns(env, 'hitl-a', ['s1']);
 */
export interface StartedRuns {
  worker: WorkerProcess;
  runs: Record<string, HitlRun>;
}

/**
 * Spawn a worker running the HITL agent. `executorId` is its DBOS executor id (a recover worker reuses the
 * killed one's: DBOS recovers per executor id and application version).
 *
 * @example
 * const recoverer = spawnHitlWorker(env, 'recover', 'hitl-kill-a', ['s1']);
 */
export function spawnHitlWorker(env: DrillEnvironment, mode: WorkerMode, executorId: string, sessions: string[], options: HitlWorkerOptions = {}): WorkerProcess {
  const config: WorkerConfig = { ...env.workerConfig(mode, sessions), agent: 'hitl', ...options };
  return env.workers.spawn(`${mode} worker ${executorId}`, executorId, config);
}

/**
 * Start (execute) or resume `sessions` in one worker; resolves once the worker reported every run's id.
 *
 * @example
 * const { worker, runs } = await startHitlRuns(env, 'hitl-resume-c', ['s1'], {}, 'resume');
 */
export async function startHitlRuns(
  env: DrillEnvironment,
  executorId: string,
  sessions: string[],
  options: HitlWorkerOptions = {},
  mode: 'start' | 'resume' = 'start',
): Promise<StartedRuns> {
  const worker = spawnHitlWorker(env, mode, executorId, sessions, options);
  const runs: Record<string, HitlRun> = {};
  for (const sessionId of sessions) {
    const started = await worker.waitForEvent('started', DRILL_TIMEOUTS.start, (event) => event.sessionId === sessionId);
    runs[sessionId] = { sessionId, runId: started.runId, workflowId: started.workflowId };
  }
  return { worker, runs };
}

/**
 * Wait until `run` blocks in its warm wait for the given calls (see `waitingForHumans`).
 *
 * @example
 * await untilWaiting(env, worker, runs.s1, [HITL_CALLS.pickCity]);
 */
export async function untilWaiting(env: DrillEnvironment, worker: WorkerProcess, run: HitlRun, toolCallIds: string[]): Promise<void> {
  await waitUntil(
    `${run.sessionId} waiting for ${toolCallIds.join(', ')}`,
    DRILL_TIMEOUTS.signal,
    () => waitingForHumans(env.stateStore, env.pool, run.sessionId, run.workflowId, toolCallIds),
    () => worker.describe(),
  );
}

/**
 * Wait until a recovering worker has claimed `run`'s workflow (re-enqueued by recovery, dequeued again).
 *
 * @example
 * await untilClaimed(env, recoverer, runs.s1);
 */
export async function untilClaimed(env: DrillEnvironment, worker: WorkerProcess, run: HitlRun): Promise<void> {
  await waitUntil(`${worker.label} to claim ${run.workflowId}`, DRILL_TIMEOUTS.start, () => claimedAfterRecovery(env.pool, run.workflowId), () => worker.describe());
}

/**
 * The outcome a worker printed for a session, and when (worker clock = parent clock: same machine).
 *
 * @example
 * const { result, at } = await outcomeOf(worker, 's1');
 */
export async function outcomeOf(worker: WorkerProcess, sessionId: string): Promise<{ result: AgentResult; at: number }> {
  const event = await worker.waitForEvent('result', DRILL_TIMEOUTS.result, (candidate) => candidate.sessionId === sessionId);
  return { result: event.result as AgentResult, at: event.at ?? Number.NaN };
}

/**
 * Wait for a worker to exit by itself and require exit code 0.
 *
 * @example
 * await expectCleanExit(worker);
 */
export async function expectCleanExit(worker: WorkerProcess): Promise<void> {
  const code = await worker.waitForExit(DRILL_TIMEOUTS.exit);
  if (code !== 0) throw new Error(`${worker.label} exited with code ${String(code)}\n${worker.describe()}`);
}
