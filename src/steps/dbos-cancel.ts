import { DBOS_CANCELLED_ERROR, isAbortReason } from '../orchestration/abort-text.js';
import type { ParentLink, RunScope } from '../orchestration/workflow-input.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { RunRecord } from '../types/session.js';
import type { StreamManager } from '../stream/stream-manager.js';
import { openStreamWriter, recordRunAborted } from './aborted-run.js';
import { peekRuntimeDependencies } from './runtime-registry.js';
import { workflowCancelled } from '../journal/journal.js';
import { outsideWorkflows } from '../journal/outside-workflows.js';
import { notifyChildDone } from '../channels/child-done.js';
import { turnKeyOf } from './step-scope.js';
import { forgetWorkflow } from './stream-reset-tracker.js';
import { signalRunChanged } from './run-signals.js';

/** The run whose DBOS workflow was cancelled: its session, stream and agent type. */
export type CancelledRun = Pick<RunScope, 'sessionId' | 'runId' | 'streamId' | 'agentType'>;

/**
 * Record a run whose DBOS workflow was cancelled from outside the executor (`DBOS.cancelWorkflow`, `dbos workflow
 * cancel`), per kind of run: a standard root run as `abort()` records one ({@link recordCancelledRun}), a sub-agent's
 * own workflow as a terminated child whose parent goes on, a persistent turn as an aborted turn. Called from the
 * workflow body when a step reports the cancellation or a lost ownership (DBOS's cancel clears the owner), once DBOS's
 * record confirms the cancel: a cancelled workflow can run no step; DBOS notices within ~1 s, or when a tool that
 * ignores its abort signal returns. Best effort: a crash before it leaves the run `running`, which the executor's
 * stuck-run repair (`repairStuckRun`, at the next call on the session) records. `DBOS.resumeWorkflow` of a cancelled
 * standard root run reopens it at its first live step (`reopenResumedRun`).
 *
 * @example
 * if (isDBOSControlError(error)) await recordOperatorCancel(scope, input.parent, options.begun === true);
 */
export async function recordOperatorCancel(scope: RunScope, parent: ParentLink | undefined, persistentTurn: boolean): Promise<void> {
  const dependencies = peekRuntimeDependencies();
  // Lost ownership to another process (a rolling deploy) is not a cancellation: that process goes on with the run.
  if (dependencies === undefined || !(await workflowCancelled(scope.workflowId))) return;
  const { stateStore, streamManager } = dependencies;
  if (persistentTurn) await recordCancelledTurn(stateStore, scope);
  else if (parent !== undefined) await recordCancelledChild(stateStore, scope, parent);
  else {
    // A resume (`dbos workflow resume`) continues the run (see reopenResumedRun): its next LLM step in this process
    // cleans up the partial chunks the cancelled one left, as after a crash.
    forgetWorkflow(turnKeyOf(scope));
    await recordCancelledRun(stateStore, streamManager, scope);
  }
}

/**
 * Record a run whose workflow DBOS reports CANCELLED: run `aborted`, session `failed` (failureReason `aborted`), its
 * open human calls settled (a late submission gets `already_completed`), an `error` chunk (`ABORTED`), the stream
 * ended. Returns false, writing nothing, when the run is no longer running or `abort()` cancelled it (its flag reason
 * says so; it records the abort itself). Of two writers of one cancel (the run itself, a stuck-run repair) only the
 * one that moves the run from `running` writes the rest; the other writes nothing and waits (briefly) for the
 * session to leave `active`, so its caller's next decision (a retry()) sees the whole record.
 *
 * @example
 * if (status === 'CANCELLED') return recordCancelledRun(stateStore, streamManager, { sessionId, runId, streamId, agentType });
 */
export async function recordCancelledRun(stateStore: SessionStateStore, streamManager: StreamManager, run: CancelledRun): Promise<boolean> {
  const record = await runLeftToRecord(stateStore, run, run.sessionId);
  if (record === undefined) return false;
  const stream = openStreamWriter(streamManager, run);
  stream.catch(() => undefined); // awaited by recordRunAborted; a failure before that must not go unhandled
  const recorded = await recordRunAborted(stateStore, {
    sessionId: run.sessionId,
    runId: run.runId,
    stepCount: record.stepCount,
    error: DBOS_CANCELLED_ERROR,
    now: Date.now(),
    stream,
    endStream: (streamId) => streamManager.endStream(streamId).catch(() => undefined),
    onlyWhileRunning: true,
  });
  if (recorded.alreadyRecorded === true) await otherRecordWritten(stateStore, run);
  return true;
}

/** How long the writer of a cancel that another writer recorded first waits for that record's session status. */
const OTHER_RECORD_WAIT_MS = 3_000;

/**
 * Wait until the session no longer reads `active` (the other writer's record ends with the session `failed`) or a
 * newer run is its current one, at most {@link OTHER_RECORD_WAIT_MS}.
 */
async function otherRecordWritten(stateStore: SessionStateStore, run: CancelledRun): Promise<void> {
  const deadline = Date.now() + OTHER_RECORD_WAIT_MS;
  while ((await stateStore.loadState(run.sessionId))?.status === 'active' && Date.now() < deadline) {
    if ((await stateStore.getCurrentRun(run.sessionId))?.runId !== run.runId) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A sub-agent's own workflow cancelled (not the tree's: `abort()` records that): the child's run `aborted` and its
 * session `failed` (failureReason `aborted`), its open calls settled, its parent's ref `terminated`, and the parent's
 * run woken (a `child_done` message sent from outside the cancelled workflow, which can record no operation), so the
 * parent's tool call ends with the sub-agent's termination as its error and the parent goes on. The shared stream is
 * left open (it is the root's).
 */
async function recordCancelledChild(stateStore: SessionStateStore, scope: RunScope, parent: ParentLink): Promise<void> {
  const record = await runLeftToRecord(stateStore, scope, scope.rootSessionId ?? parent.sessionId);
  if (record === undefined) return;
  const noChunk = Promise.resolve({ streamId: scope.streamId, agentType: scope.agentType, writer: undefined });
  await recordRunAborted(stateStore, {
    sessionId: scope.sessionId,
    runId: scope.runId,
    stepCount: record.stepCount,
    error: DBOS_CANCELLED_ERROR,
    now: Date.now(),
    stream: noChunk,
  });
  await stateStore.updateSubSessionRef(parent.sessionId, scope.sessionId, { status: 'terminated', error: DBOS_CANCELLED_ERROR });
  await outsideWorkflows(() => notifyChildDone(parent.workflowId, parent.callId, scope.sessionId));
}

/**
 * A persistent session's workflow cancelled mid-turn: the turn's run `aborted`, so its handle answers at once. The
 * session and its marker are left as they are: the next message finds the workflow cancelled and restarts the session
 * from the store, as after any lost generation.
 */
async function recordCancelledTurn(stateStore: SessionStateStore, scope: RunScope): Promise<void> {
  if ((await runLeftToRecord(stateStore, scope, scope.sessionId)) === undefined) return;
  await stateStore.updateRunStatus(scope.sessionId, scope.runId, 'aborted', { completionReason: 'aborted', endedAt: Date.now(), error: DBOS_CANCELLED_ERROR });
  signalRunChanged(scope.runId);
}

/**
 * The run's record when a cancel is left to record: it still reads `running`, and no `abort()` is under way (its
 * interrupt flag on `abortedSessionId` — the session, or the root of a sub-agent's tree — carries an abort reason:
 * `abort()` cancels the workflow itself and records the run).
 */
async function runLeftToRecord(
  stateStore: SessionStateStore,
  run: Pick<RunScope, 'sessionId' | 'runId'>,
  abortedSessionId: string,
): Promise<RunRecord | undefined> {
  const [record, flag] = await Promise.all([stateStore.getRun(run.sessionId, run.runId), stateStore.readInterruptFlag(abortedSessionId)]);
  return record?.status === 'running' && !isAbortReason(flag.reason) ? record : undefined;
}
