/**
 * The moves of the cross-process sub-agent drills: start or resume a tree's root in a worker (either drill
 * agent), find the current run of any session of the tree, wait for a child's LLM call or its wait for a
 * human, and take the control plane's handle of a root living in a worker. Every wait is bounded.
 */
import { expect } from 'vitest';
import type { AnyAgentConfig } from '../../../src/agent/index.js';
import type { AgentExecutionHandle } from '../../../src/executor/types.js';
import type { RunRecord } from '../../../src/types/session.js';
import type { ControlPlane } from '../hitl/control-plane.js';
import type { HitlRun } from '../hitl/hitl-flow.js';
import { waitingForHumans } from '../hitl/hitl-probes.js';
import type { DrillEnvironment } from '../support/drill-environment.js';
import { DRILL_TIMEOUTS } from '../support/drill-flow.js';
import { waitUntil } from '../support/durable-probes.js';
import type { WorkerProcess } from '../support/worker-process.js';
import type { WorkerAgent, WorkerConfig } from '../worker/worker-config.js';

/**
 * Worker options the tree drills vary.
 *
 * @example
 * const options: TreeWorkerOptions = { hitlWarmWindowMs: 2_000, applicationVersion: 'v1' };
 */
export type TreeWorkerOptions = Pick<WorkerConfig, 'hitlWarmWindowMs' | 'applicationVersion'>;

/**
 * Execute (`start`) or `resume` the root `sessionId` of `agent` in a new worker; resolves once it reported its run.
 *
 * @example
 * const { worker, run } = await startTree(env, 'crash', 'start', 'sub-ctl-a', 'root-1');
 */
export async function startTree(
  env: DrillEnvironment,
  agent: WorkerAgent,
  mode: 'start' | 'resume',
  executorId: string,
  sessionId: string,
  options: TreeWorkerOptions = {},
): Promise<{ worker: WorkerProcess; run: HitlRun }> {
  const config: WorkerConfig = { ...env.workerConfig(mode, [sessionId]), agent, ...options };
  const worker = env.workers.spawn(`${mode} worker ${executorId}`, executorId, config);
  const started = await worker.waitForEvent('started', DRILL_TIMEOUTS.start, (event) => event.sessionId === sessionId);
  return { worker, run: { sessionId, runId: started.runId, workflowId: started.workflowId } };
}

/**
 * The current run of a session once it exists (a child's run is recorded when its parent dispatches it).
 *
 * @example
 * const childRun = await currentRunOf(env, worker, childSessionId);
 */
export async function currentRunOf(env: DrillEnvironment, worker: WorkerProcess, sessionId: string): Promise<HitlRun & { record: RunRecord }> {
  let record: RunRecord | null = null;
  await waitUntil(
    `a run of ${sessionId}`,
    DRILL_TIMEOUTS.signal,
    async () => {
      record = await env.stateStore.getCurrentRun(sessionId);
      return record?.workflowId !== undefined;
    },
    () => worker.describe(),
  );
  const found = record as RunRecord | null;
  if (found?.workflowId === undefined) throw new Error(`no run of ${sessionId}`);
  return { sessionId, runId: found.runId, workflowId: found.workflowId, record: found };
}

/**
 * Wait until the fake server received the session's `step`-th LLM request (the call is then in flight).
 *
 * @example
 * await untilLLMCall(env, worker, childSessionId, 1);
 */
export async function untilLLMCall(env: DrillEnvironment, worker: WorkerProcess, sessionId: string, step: number): Promise<void> {
  await waitUntil(`${sessionId}'s LLM call of step ${step}`, DRILL_TIMEOUTS.signal, () => Promise.resolve(env.llm.countOf(sessionId, step) > 0), () => worker.describe());
}

/**
 * Wait until the session's current run blocks in its warm wait for `toolCallIds`; returns that run.
 *
 * @example
 * const childRun = await untilSessionWaiting(env, worker, childSessionId, ['call_c1_transfer']);
 */
export async function untilSessionWaiting(env: DrillEnvironment, worker: WorkerProcess, sessionId: string, toolCallIds: string[]): Promise<HitlRun> {
  const run = await currentRunOf(env, worker, sessionId);
  await waitUntil(
    `${sessionId} waiting for ${toolCallIds.join(', ')}`,
    DRILL_TIMEOUTS.signal,
    () => waitingForHumans(env.stateStore, env.pool, sessionId, run.workflowId, toolCallIds),
    () => worker.describe(),
  );
  return run;
}

/**
 * The control plane's handle of a root run living in a worker (the current run must be `run`).
 *
 * @example
 * const handle = await controlHandleOf(control, crashAgent, run);
 */
export async function controlHandleOf(control: ControlPlane, agent: AnyAgentConfig, run: HitlRun): Promise<AgentExecutionHandle<unknown>> {
  const handle = await control.executor.getHandle(agent, run.sessionId);
  if (handle === null) throw new Error(`no handle for ${run.sessionId}`);
  expect(handle.runId).toBe(run.runId);
  return handle;
}
