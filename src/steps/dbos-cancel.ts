import { DBOS_CANCELLED_ERROR, isAbortReason } from '../orchestration/abort-text.js';
import type { RunScope } from '../orchestration/workflow-input.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';
import { openStreamWriter, recordRunAborted } from './aborted-run.js';
import { peekRuntimeDependencies } from './runtime-registry.js';
import { workflowCancelled } from '../journal/journal.js';
import { turnKeyOf } from './step-scope.js';
import { forgetWorkflow } from './stream-reset-tracker.js';

/** The run whose DBOS workflow was cancelled: its session, stream and agent type. */
export type CancelledRun = Pick<RunScope, 'sessionId' | 'runId' | 'streamId' | 'agentType'>;

/**
 * Record a standard root run whose DBOS workflow was cancelled from outside the executor (`DBOS.cancelWorkflow`,
 * `dbos workflow cancel`) exactly as `abort()` records one. Called from the workflow body when a step reports the
 * cancellation or a lost ownership (DBOS's cancel clears the owner), once DBOS's record confirms the cancel: a
 * cancelled workflow can run no step; DBOS notices within ~1 s, or when a tool that ignores its abort signal returns.
 * Best effort: a crash before it leaves the run `running`, which the executor's stuck-run repair (`repairStuckRun`, at
 * the next call on the session) records the same way. `DBOS.resumeWorkflow` of the cancelled run reopens it at its
 * first live step (`reopenResumedRun`).
 *
 * @example
 * if (isDBOSControlError(error)) await recordDBOSCancel(scope);
 */
export async function recordDBOSCancel(scope: RunScope): Promise<void> {
  const dependencies = peekRuntimeDependencies();
  if (dependencies === undefined) return;
  // Lost ownership to another process (a rolling deploy) is not a cancellation: that process goes on with the run.
  if (!(await workflowCancelled(scope.workflowId))) return;
  // A resume (`dbos workflow resume`) continues the run (see reopenResumedRun): its next LLM step in this process
  // cleans up the partial chunks the cancelled one left, as after a crash.
  forgetWorkflow(turnKeyOf(scope));
  await recordCancelledRun(dependencies.stateStore, dependencies.streamManager, scope);
}

/**
 * Record a run whose workflow DBOS reports CANCELLED: run `aborted`, session `failed` (failureReason `aborted`), its
 * open human calls settled (a late submission gets `already_completed`), an `error` chunk (`ABORTED`), the stream
 * ended. Returns false, writing nothing, when the run is no longer running or `abort()` cancelled it (its flag reason
 * says so; it records the abort itself).
 *
 * @example
 * if (status === 'CANCELLED') return recordCancelledRun(stateStore, streamManager, { sessionId, runId, streamId, agentType });
 */
export async function recordCancelledRun(stateStore: SessionStateStore, streamManager: StreamManager, run: CancelledRun): Promise<boolean> {
  const [record, flag] = await Promise.all([stateStore.getRun(run.sessionId, run.runId), stateStore.readInterruptFlag(run.sessionId)]);
  if (record?.status !== 'running' || isAbortReason(flag.reason)) return false;
  const stream = openStreamWriter(streamManager, run);
  stream.catch(() => undefined); // awaited by recordRunAborted; a failure before that must not go unhandled
  await recordRunAborted(stateStore, {
    sessionId: run.sessionId,
    runId: run.runId,
    stepCount: record.stepCount,
    error: DBOS_CANCELLED_ERROR,
    now: Date.now(),
    stream,
    endStream: (streamId) => streamManager.endStream(streamId).catch(() => undefined),
  });
  return true;
}
