/**
 * Read-only probes of the durable signals the human-in-the-loop drills wait for and assert on: a run blocked
 * in its warm wait, a recovered workflow claimed by the recovering process, server-side executions per process,
 * and run status changes timed from the parent.
 */
import type pg from 'pg';
import type { PostgresStateStore } from '../../../src/store/postgres/postgres-state-store.js';
import type { RunStatus } from '../../../src/types/session.js';
import { stepRecordsOf, toolRunsOf, workflowRowOf } from './durable-probes.js';

/** Fine-grained: run status changes are timed against a 250 ms bound. */
const STATUS_POLL_MS = 2;

/**
 * True when the run waits for a human: every call has its pending entry (unanswered) and the workflow
 * recorded a completed `ClientToolStep.poll` after `ClientToolStep.suspend` — what is left before its
 * `DBOS.recv` is the checkpointed clock read, so a SIGKILL now leaves nothing of the wait to redo.
 *
 * @example
 * await waitUntil('the run waiting', 30_000, () => waitingForHumans(stateStore, pool, sessionId, workflowId, ['call_1_pick_city']));
 */
export async function waitingForHumans(stateStore: PostgresStateStore, pool: pg.Pool, sessionId: string, workflowId: string, toolCallIds: string[]): Promise<boolean> {
  const pending = (await stateStore.loadState(sessionId))?.pendingClientToolCalls ?? {};
  if (!toolCallIds.every((id) => pending[id] !== undefined && pending[id].submittedAt === undefined)) return false;
  const steps = await stepRecordsOf(pool, workflowId);
  const suspendedAt = steps.findIndex((step) => step.name === 'ClientToolStep.suspend' && step.error === null);
  return suspendedAt >= 0 && steps.slice(suspendedAt).some((step) => step.name === 'ClientToolStep.poll' && step.error === null);
}

/**
 * True when recovery re-enqueued the workflow and a process dequeued (claimed) it again: status PENDING,
 * a queue name (the original start had none) and a start time.
 *
 * @example
 * await waitUntil('B claimed the run', 30_000, () => claimedAfterRecovery(pool, workflowId));
 */
export async function claimedAfterRecovery(pool: pg.Pool, workflowId: string): Promise<boolean> {
  const row = await workflowRowOf(pool, workflowId);
  return row !== null && row.status === 'PENDING' && row.queueName !== null && row.startedAt !== null;
}

/**
 * Server-side effects of a session as `toolName:toolCallId` → the process ids that ran them, in order.
 *
 * @example
 * expect(await executionsOf(pool, 's1')).toEqual({ 'lookup:call_1_lookup_a': [workerA.pid] });
 */
export async function executionsOf(pool: pg.Pool, sessionId: string): Promise<Record<string, number[]>> {
  const executions: Record<string, number[]> = {};
  for (const run of await toolRunsOf(pool, sessionId)) {
    const key = `${run.toolName}:${run.toolCallId}`;
    executions[key] = [...(executions[key] ?? []), run.pid];
  }
  return executions;
}

/**
 * Poll a run record (every 2 ms) until its status is `wanted`; resolves the time it was first seen so.
 * Fails after `timeoutMs` naming the status last seen.
 *
 * @example
 * const seenAt = await runStatusReached(stateStore, 's1', runId, 'interrupted', 5_000);
 */
export async function runStatusReached(stateStore: PostgresStateStore, sessionId: string, runId: string, wanted: RunStatus, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await stateStore.getRun(sessionId, runId);
    if (run?.status === wanted) return Date.now();
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for run ${runId} of ${sessionId} to be ${wanted} (last seen: ${String(run?.status)})`);
    await new Promise((resolve) => setTimeout(resolve, STATUS_POLL_MS));
  }
}
