import { markCallsCompleted } from '../orchestration/hitl-decisions.js';
import type { SessionStateStore } from '../store/state-store.js';
import { updateSessionWithRetry } from '../store/update-session-with-retry.js';
import type { StreamManager, StreamWriter } from '../stream/stream-manager.js';
import { emitRunEnded } from './run-telemetry.js';
import { signalRunChanged } from './run-signals.js';

/** A session's stream, its agent type and a writer on it (`undefined` when it cannot be opened). */
export interface OpenedStream {
  streamId: string;
  agentType: string;
  writer: StreamWriter | undefined;
}

/** Whether the session's current run is a newer one than `runId` (a retry or a new turn started since). */
async function supersededRun(stateStore: Pick<SessionStateStore, 'getCurrentRun'>, sessionId: string, runId: string): Promise<boolean> {
  const current = await stateStore.getCurrentRun(sessionId);
  return current !== null && current.runId !== runId;
}

/**
 * Open a writer on a session's stream for its final chunk (`writer` is `undefined` when the stream cannot be opened).
 *
 * @example
 * const opening = openStreamWriter(streamManager, { streamId: 's1', sessionId: 's1', agentType: 'assistant' });
 */
export async function openStreamWriter(
  streamManager: StreamManager,
  target: { streamId: string; sessionId: string; agentType: string },
): Promise<OpenedStream> {
  const writer = await streamManager.createWriter(target.streamId, target.sessionId, target.agentType).catch(() => undefined);
  return { streamId: target.streamId, agentType: target.agentType, writer };
}

/**
 * Drop a session's pending calls and record them — and `alsoCompleted` (its descendants' calls) — as completed, so
 * a late submission gets `already_completed`. Returns the dropped ids.
 *
 * @example
 * const dropped = await settleOpenCalls(stateStore, 'child-1', Date.now(), []);
 */
export async function settleOpenCalls(stateStore: SessionStateStore, sessionId: string, now: number, alsoCompleted: readonly string[]): Promise<string[]> {
  const { value } = await updateSessionWithRetry(stateStore, sessionId, (state) => {
    const open = Object.keys(state.pendingClientToolCalls ?? {});
    const ids = [...open, ...alsoCompleted];
    if (ids.length === 0) return { write: null, value: open };
    const completed = markCallsCompleted(state.completedClientToolCalls, ids, now);
    return { write: { pendingClientToolCalls: undefined, suspendedStepId: undefined, completedClientToolCalls: completed }, value: open };
  });
  return value;
}

/** The abort to record: the run, its error text, when, the stream being opened and its descendants' settled calls. */
export interface AbortRecord {
  sessionId: string;
  runId: string;
  stepCount: number;
  error: string;
  now: number;
  stream: Promise<OpenedStream>;
  alsoCompleted?: readonly string[];
  /**
   * End the stream after its chunk and before the session reads failed: from then on a retry() or a resume of the
   * cancelled workflow (`reopenResumedRun`) may reactivate the stream, which this end must not undo. Without it the
   * caller ends the stream afterwards.
   */
  endStream?: (streamId: string) => Promise<void>;
  /**
   * Record the run only while it still reads `running` (`compareAndSetRunStatus`, where the store has it): set by a
   * DBOS cancel's writers, two of which (the run itself, a stuck-run repair) may record one cancel. The one that moves
   * the run to `aborted` records the rest; the other writes nothing (`alreadyRecorded`), so it cannot end the stream
   * or fail the session of a retry() that followed the first record. `abort()` records unconditionally (a cancelled
   * persistent turn may record its run first).
   */
  onlyWhileRunning?: boolean;
}

/** What {@link recordRunAborted} recorded: the stream it opened, and whether it left the session alone. */
export type AbortRecorded = OpenedStream & {
  /** A newer run is the session's current one: only this run was recorded. */
  superseded?: true;
  /** Another writer recorded this run's end first (`onlyWhileRunning`): nothing was written. */
  alreadyRecorded?: true;
};

/**
 * Record a run as aborted, the one way `abort()` and a DBOS cancel both record it: its open calls (and `alsoCompleted`)
 * settled, run `aborted`, an `error` chunk (`ABORTED`) written and the writer closed, the stream ended (`endStream`),
 * then session `failed` (failureReason `aborted`). Without `endStream` the caller ends the stream (returned)
 * afterwards, with its own error handling. The `ABORTED` chunk is keyed by run: two writers recording one cancel
 * (the run and a stuck-run repair) store it once; with `onlyWhileRunning` only the writer that moves the run from
 * `running` to `aborted` writes anything (the other gets `alreadyRecorded`). A late writer, when the session's current
 * run is already a newer one (a retry() started meanwhile), records only its run (`superseded`): nothing of the
 * session, its calls or stream.
 *
 * @example
 * const opened = await recordRunAborted(stateStore, { sessionId, runId, stepCount, error, now, stream: opening });
 * if (opened.superseded !== true) await streamManager.endStream(opened.streamId);
 */
export async function recordRunAborted(stateStore: SessionStateStore, abort: AbortRecord): Promise<AbortRecorded> {
  const { sessionId, runId, error, now } = abort;
  const outcome = { completionReason: 'aborted' as const, endedAt: now, error };
  // A late writer of the cancel (it is recorded twice: by the run and by a stuck-run repair) after a retry() started a
  // newer run records only its own run: the session, its calls and its stream belong to the newer run now.
  const late = await supersededRun(stateStore, sessionId, runId);
  // One decision between two writers of one cancel, before anything else is written: the loser's writes (calls, chunk,
  // stream end, session status) could land after a retry() that the winner's record let start. `undefined`: no decision
  // (not asked for, or a store without the method): the run is written below, unconditionally.
  const won = abort.onlyWhileRunning === true ? await stateStore.compareAndSetRunStatus?.(sessionId, runId, ['running'], 'aborted', outcome) : undefined;
  if (won === false) {
    const opened = await abort.stream;
    await opened.writer?.close().catch(() => undefined);
    return { ...opened, alreadyRecorded: true };
  }
  // Settled before the session reads aborted: whoever sees it aborted sees its calls settled too.
  if (!late) await settleOpenCalls(stateStore, sessionId, now, abort.alsoCompleted ?? []);
  if (won === undefined) await stateStore.updateRunStatus(sessionId, runId, 'aborted', outcome);
  signalRunChanged(runId);
  const opened = await abort.stream;
  if (late || (await supersededRun(stateStore, sessionId, runId))) {
    await opened.writer?.close().catch(() => undefined);
    return { ...opened, superseded: true };
  }
  if (opened.writer !== undefined) {
    const chunk = {
      type: 'error' as const,
      error,
      code: 'ABORTED',
      recoverable: false,
      agentId: sessionId,
      agentType: opened.agentType,
      step: abort.stepCount,
      timestamp: now,
    };
    // Keyed: two writers of one cancel (the run itself, a stuck-run repair) store one chunk.
    await opened.writer.write(chunk, { key: `${runId}:aborted` }).catch(() => undefined);
    await opened.writer.close().catch(() => undefined);
  }
  // The stream's end before the session's status, as a finishing run does: that status lets a retry() (or a resumed
  // workflow's reopening) reactivate the stream, which this end must not undo.
  if (abort.endStream !== undefined) await abort.endStream(opened.streamId);
  await stateStore.updateStatus(sessionId, 'failed', { error, failureReason: 'aborted' });
  await emitRunEnded(
    stateStore,
    { sessionId, runId, agentType: opened.agentType },
    { status: 'aborted', completionReason: 'aborted', stepCount: abort.stepCount, error },
  );
  return opened;
}
