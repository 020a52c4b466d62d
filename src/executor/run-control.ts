import { DBOS } from '@dbos-inc/dbos-sdk';
import { wakeCallWaiter } from '../workflows/workflow-messages.js';
import { updateSessionWithRetry } from '../store/update-session-with-retry.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';

/**
 * Wake a run blocked in `DBOS.recv` on any of the session's pending calls, so it sees an interrupt or a
 * cancellation at once instead of at its next poll. Returns how many wake-ups were sent.
 */
export async function wakeWaitingRun(stateStore: SessionStateStore, sessionId: string, workflowId: string): Promise<number> {
  const state = await stateStore.loadState(sessionId);
  const open = Object.values(state?.pendingClientToolCalls ?? {}).filter((entry) => entry.submittedAt === undefined);
  await Promise.all(open.map((entry) => wakeCallWaiter(workflowId, entry.toolCallId)));
  return open.length;
}

/**
 * Durable interrupt: set the session's interrupt flag (observed at the next step boundary and during
 * human-in-the-loop waits, from any process) and wake a waiting run. The run ends `interrupted`, resumable.
 *
 * @example
 * await interruptSession(stateStore, 's1', 'user pressed stop');
 */
export async function interruptSession(stateStore: SessionStateStore, sessionId: string, reason?: string): Promise<void> {
  await stateStore.setInterruptFlag(sessionId, reason);
  const run = await stateStore.getCurrentRun(sessionId);
  if (run?.status === 'running' && run.workflowId !== undefined) await wakeWaitingRun(stateStore, sessionId, run.workflowId);
}

/**
 * Abort: cancel the run's DBOS workflow, wake it if it waits, and record the outcome durably (run
 * `aborted`; session `failed` with failureReason `aborted`, not resumable; stream ended with an error chunk).
 * Returns false when there was no running run to abort.
 *
 * @example
 * await abortSession(stateStore, streamManager, 's1', 'cancelled by user');
 */
export async function abortSession(stateStore: SessionStateStore, streamManager: StreamManager, sessionId: string, reason?: string): Promise<boolean> {
  const run = await stateStore.getCurrentRun(sessionId);
  if (run === null || run.workflowId === undefined || (run.status !== 'running' && run.status !== 'suspended_client_tool')) return false;
  const error = reason === undefined ? 'Aborted' : `Aborted: ${reason}`;
  if (run.status === 'running') {
    // The flag ends a retry backoff inside a running step at once; cancellation stops the workflow after it.
    await stateStore.setInterruptFlag(sessionId, error);
    await DBOS.cancelWorkflow(run.workflowId);
    await wakeWaitingRun(stateStore, sessionId, run.workflowId);
  }
  const now = Date.now();
  await stateStore.updateRunStatus(sessionId, run.runId, 'aborted', { completionReason: 'aborted', endedAt: now, error });
  await stateStore.updateStatus(sessionId, 'failed', { error, failureReason: 'aborted' });
  // Calls the aborted run waited for are settled: a late submission gets `already_completed`.
  await updateSessionWithRetry(stateStore, sessionId, (state) => {
    const open = Object.keys(state.pendingClientToolCalls ?? {});
    if (open.length === 0) return { write: null, value: undefined };
    const completed = { ...(state.completedClientToolCalls ?? {}), ...Object.fromEntries(open.map((id) => [id, now])) };
    return { write: { pendingClientToolCalls: undefined, suspendedStepId: undefined, completedClientToolCalls: completed }, value: undefined };
  });
  const state = await stateStore.loadState(sessionId);
  const streamId = state?.streamId ?? sessionId;
  const writer = await streamManager.createWriter(streamId, sessionId, state?.agentType ?? 'unknown').catch(() => undefined);
  if (writer !== undefined) {
    await writer
      .write({ type: 'error', error, code: 'ABORTED', recoverable: false, agentId: sessionId, agentType: state?.agentType ?? 'unknown', step: run.stepCount, timestamp: now })
      .catch(() => undefined);
    await writer.close().catch(() => undefined);
  }
  await streamManager.endStream(streamId);
  return true;
}
