import { DBOS } from '@dbos-inc/dbos-sdk';
import type { AgentExecutionHandle, AgentResult, DBOSAgentExecutor } from '../../src/index.js';
import type { createFleetAgents } from './fleet-app.js';
import type { AwaitBy, LatencySample, RunOutcome } from './fleet-protocol.js';

type FleetAgents = ReturnType<typeof createFleetAgents>;

/**
 * Pause before each one-step run: at least `MIN_GAP_MS` (so a run's trailing writes are not the next run's cost),
 * plus a random part longer than any polling interval measured, so enqueues fall at random points of the queue's
 * polling cycle (back-to-back runs would lock to its phase).
 */
const MIN_GAP_MS = 10;
const RANDOM_GAP_MS = 60;
/** How often the status-query diagnostic asks DBOS which runs of a burst ended. */
const STATUS_POLL_MS = 20;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU time (user + system) of this process since `since`, in ms. */
function cpuMsSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1_000;
}

/**
 * Start `sessions` sessions of the multi-step agent at once (one synchronous loop of `execute()` calls), named
 * `<label>-<index>`, and wait for every result `awaitBy` (fleet-protocol.ts): the wall time from the first call to
 * the last result, this process's CPU time meanwhile, and each run's outcome.
 *
 * @example
 * const { wallMs, outcomes } = await runBurst(executor, agents, { label: 'round', sessions: 128, awaitBy: 'handle' });
 */
export async function runBurst(
  executor: DBOSAgentExecutor,
  agents: FleetAgents,
  burst: { label: string; sessions: number; awaitBy: AwaitBy },
): Promise<{ wallMs: number; cpuMs: number; outcomes: RunOutcome[] }> {
  const cpu = process.cpuUsage();
  const startedAt = performance.now();
  const start = (index: number): Promise<AgentExecutionHandle<unknown>> => executor.execute(agents.steps, 'Go.', { sessionId: `${burst.label}-${index}` });
  const outcome = (handle: AgentExecutionHandle<unknown>, result: AgentResult<unknown>): RunOutcome => ({ sessionId: handle.sessionId, status: result.status, stepCount: result.stepCount });
  const outcomes =
    burst.awaitBy === 'handle'
      ? await Promise.all(Array.from({ length: burst.sessions }, async (_, index) => {
          const handle = await start(index);
          return outcome(handle, await handle.result());
        }))
      : await collectByStatus(await Promise.all(Array.from({ length: burst.sessions }, (_, index) => start(index))), outcome);
  return { wallMs: performance.now() - startedAt, cpuMs: cpuMsSince(cpu), outcomes };
}

/** The diagnostic wait: one DBOS status query for the open runs every `STATUS_POLL_MS`, then each result read once. */
async function collectByStatus(
  handles: Array<AgentExecutionHandle<unknown>>,
  outcome: (handle: AgentExecutionHandle<unknown>, result: AgentResult<unknown>) => RunOutcome,
): Promise<RunOutcome[]> {
  const open = new Set(handles.map((handle) => handle.workflowId));
  while (open.size > 0) {
    await sleep(STATUS_POLL_MS);
    const ended = await DBOS.listWorkflows({ workflowIDs: [...open], status: ['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'], loadInput: false, loadOutput: false });
    for (const status of ended) open.delete(status.workflowID);
  }
  return Promise.all(handles.map(async (handle) => outcome(handle, await DBOS.retrieveWorkflow<AgentResult<unknown>>(handle.workflowId).getResult())));
}

/**
 * `samples` one-step runs of the answering agent, one at a time: `execute()` → `result()`, with the moments DBOS
 * recorded the workflow dequeued and completed (read after the result, unmeasured).
 *
 * @throws Error when a run did not complete in one step.
 * @example
 * const samples = await runLatencies(executor, agents, 'latency', 50);
 */
export async function runLatencies(executor: DBOSAgentExecutor, agents: FleetAgents, label: string, samples: number): Promise<LatencySample[]> {
  const measured: LatencySample[] = [];
  for (let index = 0; index < samples; index += 1) {
    await sleep(MIN_GAP_MS + Math.random() * RANDOM_GAP_MS);
    const sessionId = `${label}-${index}`;
    const startedAt = performance.now();
    const startedEpochMs = performance.timeOrigin + startedAt;
    const handle = await executor.execute(agents.answer, 'Go.', { sessionId });
    const returnedMs = performance.now() - startedAt;
    const result = await handle.result();
    const resultMs = performance.now() - startedAt;
    if (result.status !== 'completed' || result.stepCount !== 1) throw new Error(`One-step run ${sessionId} ended ${result.status} after ${result.stepCount} steps.`);
    const status = await DBOS.getWorkflowStatus(handle.workflowId);
    if (status?.completedAt === undefined) throw new Error(`DBOS recorded no completion time for ${handle.workflowId}.`);
    measured.push({
      returnedMs,
      ...(status.dequeuedAt === undefined ? {} : { dequeuedMs: status.dequeuedAt - startedEpochMs }),
      completedMs: status.completedAt - startedEpochMs,
      resultMs,
    });
  }
  return measured;
}
