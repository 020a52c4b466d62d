import { isParkedRunStatus } from '../orchestration/session-transitions.js';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { HelixError, StoreError } from '../errors/index.js';
import { wakeCallWaiter } from '../channels/call-messages.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';
import type { SubSessionRef } from '../types/session.js';
import { forwardToRemoteSubAgents } from './remote-control.js';
import { readPersistentMarker } from '../orchestration/persistent-session.js';
import { closeCompanionSession } from '../steps/companion-children.js';
import { openStreamWriter, recordRunAborted, settleOpenCalls } from '../steps/aborted-run.js';
import { openCallsOf } from '../store/open-calls.js';
import { abortErrorText } from '../orchestration/abort-text.js';

/**
 * Wake a run blocked in `DBOS.recv` on any of the session's pending calls, so it sees an interrupt or a
 * cancellation at once instead of at its next poll. Returns how many wake-ups were sent.
 */
export async function wakeWaitingRun(stateStore: SessionStateStore, sessionId: string, workflowId: string): Promise<number> {
  const state = await stateStore.loadState(sessionId);
  const open = openCallsOf(state);
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
  // Every running sub-agent below the session stops too (its flag is its own; the parent then ends interrupted).
  const sessions = [sessionId, ...(await descendantSessions(stateStore, sessionId, ['running']))];
  // All flags, then all wake-ups (a woken run must find its flag), each batch at once: the latency of a deep
  // or wide tree must not grow with a round trip per session.
  await Promise.all(sessions.map((id) => stateStore.setInterruptFlag(id, reason)));
  // Remote sub-agents are told alongside the wake-ups (no extra round trip before them).
  await Promise.all([
    forwardToRemoteSubAgents(stateStore, sessions, 'interrupt', reason),
    ...sessions.map(async (id) => {
      const run = await stateStore.getCurrentRun(id);
      if (run?.status === 'running' && run.workflowId !== undefined) await wakeWaitingRun(stateStore, id, run.workflowId);
    }),
  ]);
}

/**
 * Sub-agent sessions below `sessionId` whose ref has one of `statuses`, parents before children (breadth first).
 *
 * @example
 * const live = await descendantSessions(stateStore, 'root', ['running']);
 */
export async function descendantSessions(stateStore: SessionStateStore, sessionId: string, statuses: ReadonlyArray<SubSessionRef['status']>): Promise<string[]> {
  const found: string[] = [];
  const queue = [sessionId];
  const seen = new Set(queue);
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const ref of await stateStore.getSubSessionRefs(next)) {
      // A remote sub-agent's session lives on another server (forwardToRemoteSubAgents reaches it).
      if (ref.remote !== undefined || !statuses.includes(ref.status) || seen.has(ref.subSessionId)) continue;
      seen.add(ref.subSessionId);
      found.push(ref.subSessionId);
      queue.push(ref.subSessionId);
    }
  }
  return found;
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
  try {
    return await abortRecorded(stateStore, streamManager, sessionId, reason);
  } catch (error) {
    if (HelixError.isInstance(error)) throw error;
    // A driver or DBOS error: typed, payload-free, and safe to repeat (every write above is idempotent).
    throw new StoreError('STORE_ERROR', 'abort() could not record the abort (a database call failed); call abort() again.', { cause: error });
  }
}

async function abortRecorded(stateStore: SessionStateStore, streamManager: StreamManager, sessionId: string, reason?: string): Promise<boolean> {
  const run = await stateStore.getCurrentRun(sessionId);
  if (run === null || run.workflowId === undefined || (run.status !== 'running' && !isParkedRunStatus(run.status))) return false;
  const error = abortErrorText(reason);
  // The stream's writer opens alongside the abort's records (in a fresh process its first query also opens the
  // stream manager's first connection, which would otherwise delay abort()'s return by a connection set-up).
  const opening = stateStore.loadState(sessionId).then((state) =>
    openStreamWriter(streamManager, { streamId: state?.streamId ?? sessionId, sessionId, agentType: state?.agentType ?? 'unknown' }),
  );
  opening.catch(() => undefined); // awaited below; a failure before that must not go unhandled
  const descendants = await descendantSessions(stateStore, sessionId, ['running', 'paused_awaiting_client']);
  await forwardToRemoteSubAgents(stateStore, [sessionId, ...descendants], 'abort', error);
  if (run.status === 'running') {
    // The flag ends a retry backoff inside a running step at once; cancellation stops the workflow (and its
    // sub-agent child workflows) after it.
    await stateStore.setInterruptFlag(sessionId, error);
    await DBOS.cancelWorkflow(run.workflowId, { cancelChildren: true });
    await wakeWaitingRun(stateStore, sessionId, run.workflowId);
  }
  const now = Date.now();
  // Calls the aborted tree waited for are settled: a late submission (always made against this session, which
  // routes it to the owning descendant) gets `already_completed`.
  const settledBelow: string[] = [];
  for (const child of descendants) {
    await terminateDescendant(stateStore, child, error);
    settledBelow.push(...(await settleOpenCalls(stateStore, child, now, [])));
  }
  // The stream ends before the session reads failed: a retry() or a resumed workflow reactivating it after that is
  // never undone by this end.
  const endStream = (streamId: string): Promise<void> => streamManager.endStream(streamId);
  const aborted = { sessionId, runId: run.runId, stepCount: run.stepCount, error, now, stream: opening, alsoCompleted: settledBelow, endStream };
  await recordRunAborted(stateStore, aborted);
  return true;
}

/** Record a sub-agent of an aborted tree as terminated: its run aborted, its session failed (aborted), its ref terminated. */
async function terminateDescendant(stateStore: SessionStateStore, sessionId: string, error: string): Promise<void> {
  const state = await stateStore.loadState(sessionId);
  // A companion's workflow may not be a DBOS child of the aborted run, and may be about to open a turn: its
  // marker is closed first, so that turn records itself aborted (nothing is left running).
  if (state?.parentSessionId !== undefined && readPersistentMarker(state.metadata) !== undefined) {
    await closeCompanionSession(stateStore, state.parentSessionId, sessionId, error);
    return;
  }
  const run = await stateStore.getCurrentRun(sessionId);
  if (run !== null && (run.status === 'running' || isParkedRunStatus(run.status))) {
    if (run.workflowId !== undefined) await DBOS.cancelWorkflow(run.workflowId);
    await stateStore.updateRunStatus(sessionId, run.runId, 'aborted', { completionReason: 'aborted', endedAt: Date.now(), error });
  }
  await stateStore.updateStatus(sessionId, 'failed', { error, failureReason: 'aborted' });
  const parentSessionId = (await stateStore.loadState(sessionId))?.parentSessionId;
  if (parentSessionId !== undefined) await stateStore.updateSubSessionRef(parentSessionId, sessionId, { status: 'terminated', error });
}
