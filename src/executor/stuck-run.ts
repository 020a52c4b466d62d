import { DBOS } from '@dbos-inc/dbos-sdk';
import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';
import type { SessionState } from '../types/session.js';
import { recordCancelledRun } from '../steps/dbos-cancel.js';
import { emitRunEnded } from '../steps/run-telemetry.js';

/** DBOS statuses of a workflow that will never run again by itself. */
const ENDED_WORKFLOW = new Set(['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED']);

/** A run record `running` whose workflow is missing for this long lost its workflow (reset or collected). */
export const MISSING_WORKFLOW_AFTER_MS = 10_000;

/**
 * Repair a run recorded `running` that nothing will ever end: its DBOS workflow has ended (it failed before
 * recording an outcome, was cancelled outside the executor, or exceeded its recovery attempts) or — with
 * `missingAfterMs` — has been missing from the system database for that long. The run becomes `failed`, the
 * session `failed` (so `retry()` works), and the stream gets an error chunk and ends. Returns true when it
 * repaired something.
 *
 * @example
 * if (await repairStuckRun(stateStore, streamManager, sessionId)) continue; // decide again
 */
export async function repairStuckRun(
  stateStore: SessionStateStore,
  streamManager: StreamManager,
  sessionId: string,
  options: { missingAfterMs?: number } = {},
): Promise<boolean> {
  const run = await stateStore.getCurrentRun(sessionId);
  if (run === null || run.status !== 'running' || run.workflowId === undefined) return false;
  const status = (await DBOS.getWorkflowStatus(run.workflowId))?.status;
  if (status === undefined) {
    if (options.missingAfterMs === undefined || Date.now() - run.startedAt < options.missingAfterMs) return false;
  } else if (!ENDED_WORKFLOW.has(status)) {
    return false;
  } else if (status === 'CANCELLED') {
    // Cancelled through DBOS (an operator) and not recorded by the run itself (a crash came first): recorded as
    // abort() records one. abort()'s own cancel is left to abort(), which is recording it.
    const session = await stateStore.loadState(sessionId);
    const cancelled = { sessionId, runId: run.runId, streamId: session?.streamId ?? sessionId, agentType: session?.agentType ?? 'unknown' };
    if (await recordCancelledRun(stateStore, streamManager, cancelled)) return true;
  }
  // The workflow may have recorded its outcome between the two reads.
  if ((await stateStore.getRun(sessionId, run.runId))?.status !== 'running') return false;
  const error =
    status === undefined
      ? "The run's DBOS workflow is missing from the system database; retry() runs the session again."
      : `The run's DBOS workflow ended (${status}) without recording an outcome; retry() runs the session again.`;
  const now = Date.now();
  const state = await stateStore.loadState(sessionId);
  const streamId = state?.streamId ?? sessionId;
  const writer = await streamManager.createWriter(streamId, sessionId, state?.agentType ?? 'unknown').catch(() => undefined);
  if (writer !== undefined) {
    await writer.write({ type: 'error', error, recoverable: false, agentId: sessionId, agentType: state?.agentType ?? 'unknown', step: run.stepCount, timestamp: now }).catch(() => undefined);
    await writer.close().catch(() => undefined);
  }
  await streamManager.endStream(streamId).catch(() => undefined);
  await stateStore.compareAndSetStatus(sessionId, ['active'], 'failed', { error });
  await stateStore.updateRunStatus(sessionId, run.runId, 'failed', { completionReason: 'failed', endedAt: now, error });
  await emitRunEnded(stateStore, { sessionId, runId: run.runId, agentType: state?.agentType ?? 'unknown' }, { status: 'failed', completionReason: 'failed', stepCount: run.stepCount, error, run });
  return true;
}

/** How long a call waits for a running run's stream to end (its terminal chunk may already be out) before refusing. */
export const STREAM_ENDING_WAIT_MS = 1_000;

/** How long a call waits for a run that has ended its stream to record its outcome. */
export const FINISHING_RUN_WAIT_MS = 3_000;

/**
 * Whether the session's running run was finishing and has recorded its outcome meanwhile: its finish step ends the
 * stream before it writes the session's status (a next turn reactivates the stream, which the finish must not end
 * afterwards), so a client that read the stream to its end and sends the next message at once can arrive in between.
 * Waits up to {@link FINISHING_RUN_WAIT_MS} for the status to change, then returns true (decide again); false when
 * the run is not finishing (its stream is still active) or did not finish in time.
 *
 * @example
 * if (run?.status === 'running' && (await finishedMeanwhile(stateStore, streamManager, existing))) continue;
 */
export async function finishedMeanwhile(stateStore: SessionStateStore, streamManager: StreamManager, session: SessionState | null): Promise<boolean> {
  if (session === null || session.status !== 'active') return false;
  const streamId = session.streamId ?? session.sessionId;
  let stream = await streamManager.getInfo(streamId);
  // A UI stream ends at the run's terminal chunk, which the finish step writes just before it ends the stream: a
  // client that sends at once can arrive in between. Give a finishing run that moment before refusing.
  const endingBy = Date.now() + STREAM_ENDING_WAIT_MS;
  while (stream !== null && stream.status === 'active' && Date.now() < endingBy) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    stream = await streamManager.getInfo(streamId);
  }
  if (stream === null || stream.status === 'active') return false;
  const deadline = Date.now() + FINISHING_RUN_WAIT_MS;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if ((await stateStore.loadState(session.sessionId))?.status !== 'active') return true;
  }
  return false;
}

/**
 * Whether a session read `active` beside an ended current run was that run's own ending: a finish or an abort
 * records the run before the session, so a call can read between the two writes. Waits up to
 * {@link FINISHING_RUN_WAIT_MS} and returns true (decide again) once the session has left `active`; false as soon as
 * a new run is recorded (the session was taken for it), or when neither happened in time.
 *
 * @example
 * if (run?.status !== 'running' && (await endedMeanwhile(stateStore, sessionId, run?.runId))) continue;
 */
export async function endedMeanwhile(stateStore: SessionStateStore, sessionId: string, endedRunId: string | undefined): Promise<boolean> {
  const deadline = Date.now() + FINISHING_RUN_WAIT_MS;
  for (;;) {
    if ((await stateStore.loadState(sessionId))?.status !== 'active') return true;
    if ((await stateStore.getCurrentRun(sessionId))?.runId !== endedRunId || Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
