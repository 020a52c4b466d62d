/**
 * The moves of a crash drill: run sessions to completion (baselines), start a run in a worker that will be
 * killed, SIGKILL it, and recover in a fresh worker that never calls execute(). All waits are bounded.
 */
import type { AgentResult } from '../../../src/types/result.js';
import type { WorkerConfig } from '../worker/worker-config.js';
import type { DrillEnvironment } from './drill-environment.js';
import type { WorkerProcess } from './worker-process.js';

/**
 * Bounds of every wait (generous: a loaded 2-core machine runs several test files at once).
 *
 * @example
 * await waitUntil('the checkpoint', DRILL_TIMEOUTS.signal, () => checkpointExists(pool, sessionId, checkpointId));
 */
export const DRILL_TIMEOUTS = {
  /** Worker start → DBOS launched and execute() returned. */
  start: 30_000,
  /** Start → the durable signal the drill kills at. */
  signal: 30_000,
  /** Recover/replay worker start → its result. */
  result: 45_000,
  /** A finished worker → its exit. */
  exit: 15_000,
} as const;

/**
 * A run started in a worker that the drill will kill.
 *
 * @example
 * const doomed: DoomedRun = await startDoomedRun(env, 'crash-1', 'tool-drill', ['call_1_lookup_b']);
 */
export interface DoomedRun {
  worker: WorkerProcess;
  executorId: string;
  sessionId: string;
  runId: string;
  workflowId: string;
}

/**
 * Run `sessions` to completion in one `start` worker (no kill) and return their results by session id.
 *
 * @example
 * const baselines = await runToCompletion(env, 'crash-baseline', ['tool-baseline']);
 */
export async function runToCompletion(env: DrillEnvironment, executorId: string, sessions: string[]): Promise<Map<string, AgentResult>> {
  const worker = env.workers.spawn(`start worker ${executorId}`, executorId, env.workerConfig('start', sessions));
  const results = new Map<string, AgentResult>();
  for (const sessionId of sessions) {
    const { result } = await worker.waitForEvent('result', DRILL_TIMEOUTS.result, (event) => event.sessionId === sessionId);
    results.set(sessionId, result as AgentResult);
  }
  await expectCleanExit(worker);
  return results;
}

/**
 * Start one session in a `start` worker whose `blockToolCalls` never return; resolves once execute() did.
 *
 * @example
 * const doomed = await startDoomedRun(env, 'crash-tool', 'tool-drill', DRILL_SCENARIOS.toolCrash.blockToolCalls);
 */
export async function startDoomedRun(
  env: DrillEnvironment,
  executorId: string,
  sessionId: string,
  blockToolCalls: string[],
  extra: Pick<WorkerConfig, 'agent' | 'pauseAt'> = {},
): Promise<DoomedRun> {
  const worker = env.workers.spawn(`doomed worker ${executorId}`, executorId, env.workerConfig('start', [sessionId], { blockToolCalls, ...extra }));
  const started = await worker.waitForEvent('started', DRILL_TIMEOUTS.start, (event) => event.sessionId === sessionId);
  return { worker, executorId, sessionId, runId: started.runId, workflowId: started.workflowId };
}

/**
 * SIGKILL the doomed worker, then start a recovery-only worker (same DBOS executor id, never calls
 * execute) and resolve the result it prints for the session.
 *
 * @example
 * const { result } = await killAndRecover(env, doomed);
 */
export async function killAndRecover(
  env: DrillEnvironment,
  doomed: DoomedRun,
  extra: Pick<WorkerConfig, 'lateExecutorMs' | 'agent'> = {},
): Promise<{ worker: WorkerProcess; result: AgentResult }> {
  await doomed.worker.kill();
  const worker = env.workers.spawn(`recover worker ${doomed.executorId}`, doomed.executorId, env.workerConfig('recover', [doomed.sessionId], extra));
  const { result } = await worker.waitForEvent('result', DRILL_TIMEOUTS.result, (event) => event.sessionId === doomed.sessionId);
  await expectCleanExit(worker);
  return { worker, result: result as AgentResult };
}

/**
 * Rewind a completed session's workflow in place in a `replay` worker and resolve the re-executed result.
 *
 * @example
 * const { result } = await replayInPlace(env, 'crash-replay', 'replay-1');
 */
export async function replayInPlace(
  env: DrillEnvironment,
  executorId: string,
  sessionId: string,
  extra: Pick<WorkerConfig, 'agent'> = {},
): Promise<{ worker: WorkerProcess; result: AgentResult }> {
  const worker = env.workers.spawn(`replay worker ${executorId}`, executorId, env.workerConfig('replay', [sessionId], extra));
  const { result } = await worker.waitForEvent('result', DRILL_TIMEOUTS.result, (event) => event.sessionId === sessionId);
  await expectCleanExit(worker);
  return { worker, result: result as AgentResult };
}

async function expectCleanExit(worker: WorkerProcess): Promise<void> {
  const code = await worker.waitForExit(DRILL_TIMEOUTS.exit);
  if (code !== 0) throw new Error(`${worker.label} exited with code ${String(code)}\n${worker.describe()}`);
}
