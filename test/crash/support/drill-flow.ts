/**
 * The moves of a crash drill: spawn workers, start runs (to completion for baselines, or in a worker that will be
 * killed), wait for the durable signal a drill kills at, SIGKILL, and recover in a fresh worker that never calls
 * execute(). All waits are bounded and fail with the worker's output.
 */
import type { AgentResult } from '../../../src/types/result.js';
import type { WorkerMode } from '../worker/worker-config.js';
import type { DrillEnvironment, WorkerOptions } from './drill-environment.js';
import { waitUntil } from './durable-probes.js';
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
 * A run a worker started (or resumed).
 *
 * @example
 * const { runId, workflowId }: StartedRun = (await startRun(env, 'start', 'hitl-a', 's1', { agent: 'hitl' })).run;
 */
export interface StartedRun {
  sessionId: string;
  runId: string;
  workflowId: string;
}

/**
 * A run started in a worker that the drill will kill.
 *
 * @example
 * const doomed: DoomedRun = await startDoomedRun(env, 'crash-1', 'tool-drill', ['call_1_lookup_b']);
 */
export interface DoomedRun extends StartedRun {
  worker: WorkerProcess;
  executorId: string;
}

/**
 * Spawn an agent worker labelled `<role> worker <executorId>`. `executorId` is its DBOS executor id (a recover
 * worker reuses the killed one's: DBOS recovers per executor id and application version).
 *
 * @example
 * const recoverer = spawnWorker(env, 'recover', 'hitl-kill-a', ['s1'], { agent: 'hitl' });
 */
export function spawnWorker(env: DrillEnvironment, mode: WorkerMode, executorId: string, sessions: string[], options: WorkerOptions = {}, role: string = mode): WorkerProcess {
  return env.workers.spawn(`${role} worker ${executorId}`, executorId, env.workerConfig(mode, sessions, options));
}

/**
 * Execute (`start`) or `resume` one session in a new worker; resolves once the worker reported its run.
 *
 * @example
 * const { worker, run } = await startRun(env, 'resume', 'hitl-resume-c', 's1', { agent: 'hitl' });
 */
export async function startRun(
  env: DrillEnvironment,
  mode: 'start' | 'resume',
  executorId: string,
  sessionId: string,
  options: WorkerOptions = {},
  role: string = mode,
): Promise<{ worker: WorkerProcess; run: StartedRun }> {
  const worker = spawnWorker(env, mode, executorId, [sessionId], options, role);
  const started = await worker.waitForEvent('started', DRILL_TIMEOUTS.start, (event) => event.sessionId === sessionId);
  return { worker, run: { sessionId, runId: started.runId, workflowId: started.workflowId } };
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

/**
 * Wait (up to {@link DRILL_TIMEOUTS}.signal) for the durable signal a drill acts at; fails with `worker`'s output.
 *
 * @example
 * await waitForSignal(doomed.worker, 'lookup b running', async () => (await toolRunCounts(pool, 's1')).call_1_lookup_b === 1);
 */
export async function waitForSignal(worker: WorkerProcess, what: string, check: () => Promise<boolean>): Promise<void> {
  await waitUntil(what, DRILL_TIMEOUTS.signal, check, () => worker.describe());
}

/**
 * Run `sessions` to completion in one `start` worker (no kill) and return their results by session id.
 *
 * @example
 * const baselines = await runToCompletion(env, 'crash-baseline', ['tool-baseline']);
 */
export async function runToCompletion(env: DrillEnvironment, executorId: string, sessions: string[]): Promise<Map<string, AgentResult>> {
  const worker = spawnWorker(env, 'start', executorId, sessions);
  const results = new Map<string, AgentResult>();
  for (const sessionId of sessions) results.set(sessionId, (await outcomeOf(worker, sessionId)).result);
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
  options: Pick<WorkerOptions, 'agent' | 'pauseAt' | 'toolDelayMs' | 'journal' | 'streamFlushIntervalMs'> = {},
): Promise<DoomedRun> {
  const { worker, run } = await startRun(env, 'start', executorId, sessionId, { blockToolCalls, ...options }, 'doomed');
  return { worker, executorId, ...run };
}

/**
 * A doomed run whose worker stops at `pauseAt` (announced on stdout, then never continues), resolved once it stopped
 * there: the parent kills it at that point.
 *
 * @example
 * const doomed = await startPausedRun(env, 's1', { point: 'finish_deferred', toolCallId: 's1' });
 */
export async function startPausedRun(
  env: DrillEnvironment,
  sessionId: string,
  pauseAt: NonNullable<WorkerOptions['pauseAt']>,
  options: Pick<WorkerOptions, 'agent' | 'streamFlushIntervalMs' | 'journal'> = {},
): Promise<DoomedRun> {
  const doomed = await startDoomedRun(env, sessionId, sessionId, [], { ...options, pauseAt });
  await doomed.worker.waitForEvent('paused', DRILL_TIMEOUTS.signal, (event) => event.point === pauseAt.point);
  return doomed;
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
  options: Pick<WorkerOptions, 'lateExecutorMs' | 'agent' | 'journal'> = {},
): Promise<{ worker: WorkerProcess; result: AgentResult }> {
  await doomed.worker.kill();
  return finishIn(spawnWorker(env, 'recover', doomed.executorId, [doomed.sessionId], options), doomed.sessionId);
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
  options: Pick<WorkerOptions, 'agent'> = {},
): Promise<{ worker: WorkerProcess; result: AgentResult }> {
  return finishIn(spawnWorker(env, 'replay', executorId, [sessionId], options), sessionId);
}

async function finishIn(worker: WorkerProcess, sessionId: string): Promise<{ worker: WorkerProcess; result: AgentResult }> {
  const { result } = await outcomeOf(worker, sessionId);
  await expectCleanExit(worker);
  return { worker, result };
}
