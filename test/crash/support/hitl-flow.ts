/**
 * The moves of the human-in-the-loop and sub-agent tree drills: start a run and wait until it (or a child of
 * its tree) blocks in its wait for a human, SIGKILL the worker and let a recovering one claim the run, find the
 * current run of any session of a tree, and wait for a child's LLM call. Every wait is bounded and fails with
 * the worker's output.
 */
import type { RunRecord } from '../../../src/types/session.js';
import type { DrillEnvironment, WorkerOptions } from './drill-environment.js';
import { DRILL_TIMEOUTS, spawnWorker, startRun, waitForSignal, type StartedRun } from './drill-flow.js';
import { waitUntil } from './durable-probes.js';
import { claimedAfterRecovery, waitingForHumans } from './hitl-probes.js';
import type { WorkerProcess } from './worker-process.js';

/**
 * Wait until `run` blocks in its warm wait for the given calls (see `waitingForHumans`).
 *
 * @example
 * await untilWaiting(env, worker, run, [HITL_CALLS.pickCity]);
 */
export async function untilWaiting(env: DrillEnvironment, worker: WorkerProcess, run: StartedRun, toolCallIds: string[]): Promise<void> {
  await waitForSignal(worker, `${run.sessionId} waiting for ${toolCallIds.join(', ')}`, () =>
    waitingForHumans(env.stateStore, env.pool, run.sessionId, run.workflowId, toolCallIds),
  );
}

/**
 * Start a run of the HITL agent and wait until it blocks in its warm wait for `toolCallIds`.
 *
 * @example
 * const { worker, run } = await startWaitingRun(env, 'hitl-kill-client', 'kill-client', [HITL_CALLS.pickCity]);
 */
export async function startWaitingRun(
  env: DrillEnvironment,
  executorId: string,
  sessionId: string,
  toolCallIds: string[],
): Promise<{ worker: WorkerProcess; run: StartedRun }> {
  const started = await startRun(env, 'start', executorId, sessionId, { agent: 'hitl' });
  await untilWaiting(env, started.worker, started.run, toolCallIds);
  return started;
}

/**
 * SIGKILL `worker`, spawn a recover worker of the HITL agent under the same executor id and wait until it has
 * claimed `run`'s workflow (re-enqueued by recovery, dequeued again); resolves the recovering worker.
 *
 * @example
 * const recoverer = await killAndClaim(env, starter, 'hitl-kill-client', run);
 */
export async function killAndClaim(env: DrillEnvironment, worker: WorkerProcess, executorId: string, run: StartedRun, options: WorkerOptions = {}): Promise<WorkerProcess> {
  await worker.kill();
  const recoverer = spawnWorker(env, 'recover', executorId, [run.sessionId], { agent: 'hitl', ...options });
  await waitUntil(`${recoverer.label} to claim ${run.workflowId}`, DRILL_TIMEOUTS.start, () => claimedAfterRecovery(env.pool, run.workflowId), () => recoverer.describe());
  return recoverer;
}

/**
 * The current run of a session once it exists (a child's run is recorded when its parent dispatches it).
 *
 * @example
 * const childRun = await currentRunOf(env, worker, childSessionId);
 */
export async function currentRunOf(env: DrillEnvironment, worker: WorkerProcess, sessionId: string): Promise<StartedRun & { record: RunRecord }> {
  let record: RunRecord | null = null;
  await waitForSignal(worker, `a run of ${sessionId}`, async () => {
    record = await env.stateStore.getCurrentRun(sessionId);
    return record?.workflowId !== undefined;
  });
  const found = record as RunRecord | null;
  if (found?.workflowId === undefined) throw new Error(`no run of ${sessionId}`);
  return { sessionId, runId: found.runId, workflowId: found.workflowId, record: found };
}

/**
 * Wait until the session's current run blocks in its warm wait for `toolCallIds`; returns that run.
 *
 * @example
 * const childRun = await untilSessionWaiting(env, worker, childSessionId, ['call_c1_transfer']);
 */
export async function untilSessionWaiting(env: DrillEnvironment, worker: WorkerProcess, sessionId: string, toolCallIds: string[]): Promise<StartedRun & { record: RunRecord }> {
  const run = await currentRunOf(env, worker, sessionId);
  await untilWaiting(env, worker, run, toolCallIds);
  return run;
}

/**
 * Wait until the fake server received the session's `step`-th LLM request (the call is then in flight).
 *
 * @example
 * await untilLLMCall(env, worker, childSessionId, 1);
 */
export async function untilLLMCall(env: DrillEnvironment, worker: WorkerProcess, sessionId: string, step: number): Promise<void> {
  await waitForSignal(worker, `${sessionId}'s LLM call of step ${step}`, () => Promise.resolve(env.llm.countOf(sessionId, step) > 0));
}
