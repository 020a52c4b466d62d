import { NotResumableError, StreamError } from '../errors/index.js';
import type { StepRecord } from '../journal/step-record.js';
import { isAbortReason } from '../orchestration/abort-text.js';
import type { SessionStateStore } from '../store/state-store.js';
import { updateSessionWithRetry } from '../store/update-session-with-retry.js';
import type { StreamManager } from '../stream/stream-manager.js';
import { signalRunChanged } from './run-signals.js';
import { runtimeDependencies } from './runtime-registry.js';
import type { RunScope } from './step-scope.js';

/** Reopenings in progress in this process, per workflow: the execution's other live steps wait for them. */
const reopening = new Map<string, Promise<void>>();

/**
 * At the start of a journaled step's body: when the step is the first one a resumed execution of a standard root run
 * runs live (`record.firstLiveAfterReplay`) and the run was recorded aborted by a cancel of its DBOS workflow
 * (`DBOS.resumeWorkflow` / `dbos workflow resume` after `dbos workflow cancel` or `abort()`), reopen it: session
 * `active` again, the abort's interrupt flag cleared, the stream reactivated, the run `running` — so the step and
 * those after it continue the run. A crash recovery pays one read here (its run is still `running`); other steps
 * pay nothing, except that a step running alongside a reopening waits for it.
 *
 * @throws NotResumableError `NOT_RESUMABLE` when the aborted run was superseded (a later run owns the session).
 * @example
 * private static async run(input: CallLLMStepInput, record: StepRecord): Promise<CallLLMStepOutput> {
 *   await reopenResumedRun(record, input);
 *   // ... the step as usual
 * }
 */
export function reopenResumedRun(record: StepRecord, scope: RunScope): Promise<void> {
  const pending = reopening.get(scope.workflowId);
  if (record.firstLiveAfterReplay !== true || !isStandardRootRun(scope)) return pending ?? Promise.resolve();
  const reopen = runtimeDependencies().then(async ({ stateStore, streamManager }) => {
    await reopenCancelledRun(stateStore, streamManager, scope);
  });
  const tracked = reopen.finally(() => reopening.delete(scope.workflowId));
  tracked.catch(() => undefined); // the caller awaits `reopen`; this copy only forgets the entry
  reopening.set(scope.workflowId, reopen);
  return reopen;
}

/**
 * Reopen the run of `scope` if it was recorded aborted by a cancel (or `abort()`) while its workflow now runs again.
 * Returns true when it reopened the run; false when there was nothing to reopen (the run is `running` — a crash
 * recovery — or ended some other way).
 *
 * @throws NotResumableError `NOT_RESUMABLE` when the aborted run was superseded (a later run owns the session).
 * @example
 * if (await reopenCancelledRun(stateStore, streamManager, scope)) logger.info('run.reopened', { runId: scope.runId });
 */
export async function reopenCancelledRun(stateStore: SessionStateStore, streamManager: StreamManager, scope: RunScope): Promise<boolean> {
  const current = await stateStore.getCurrentRun(scope.sessionId);
  if (current?.runId === scope.runId && current.status !== 'aborted') return false;
  const run = current?.runId === scope.runId ? current : await stateStore.getRun(scope.sessionId, scope.runId);
  // Only a run recorded aborted by a cancel or abort(): a run that ended otherwise keeps its outcome.
  if (run?.status !== 'aborted' || !isAbortReason(run.error)) return false;
  if (current?.runId !== scope.runId || !(await reactivateSession(stateStore, scope.sessionId, scope.runId))) {
    throw new NotResumableError(
      scope.sessionId,
      'superseded',
      "this run's DBOS workflow was resumed after the run was aborted and the session moved on; the resumed workflow stops.",
    );
  }
  // The session first (the claim: a concurrent retry() wins or loses there), the run last: whoever sees the run
  // running sees the session active, the flag cleared and the stream taking chunks again.
  const flag = await stateStore.readInterruptFlag(scope.sessionId);
  if (flag.interrupted && isAbortReason(flag.reason)) await stateStore.clearInterruptFlag(scope.sessionId);
  await streamManager.reactivateStream(scope.streamId).catch((error: unknown) => {
    // A stream never created (the abort could not open it) is created by the step's first write.
    if (!StreamError.isInstance(error) || error.code !== 'STREAM_NOT_FOUND') throw error;
  });
  await stateStore.updateRunStatus(scope.sessionId, scope.runId, 'running');
  signalRunChanged(scope.runId);
  return true;
}

/**
 * Whether `scope` is a standard run of a root session: the runs whose DBOS cancel the workflow records (a
 * sub-agent's belongs to its parent's tree, a persistent turn's to its session's workflow).
 *
 * @example
 * isStandardRootRun({ sessionId: 's1', runId: 'r1', agentType: 'a', streamId: 's1', workflowId: 'w1', rootSessionId: 's1' }); // true
 */
export function isStandardRootRun(scope: RunScope): boolean {
  return scope.turnKey === undefined && (scope.rootSessionId ?? scope.sessionId) === scope.sessionId;
}

/**
 * How long a reopening waits for an abort whose run reads aborted to record the session too (the run is recorded
 * first); a session still `active` after that was reopened by an earlier attempt that stopped short.
 */
export const ABORT_RECORDING_WAIT_MS = 2_000;

/**
 * The session back to `active` from `failed` (failureReason `aborted`), its error cleared; true when it is active
 * now, false when it moved on some other way.
 */
async function reactivateSession(stateStore: SessionStateStore, sessionId: string, runId: string): Promise<boolean> {
  const deadline = Date.now() + ABORT_RECORDING_WAIT_MS;
  for (;;) {
    const { value } = await updateSessionWithRetry(stateStore, sessionId, (state) => {
      if (state.status === 'active') return { write: null, value: 'active' as const };
      if (state.status !== 'failed' || state.failureReason !== 'aborted') return { write: null, value: 'moved' as const };
      return { write: { status: 'active', error: undefined, failureReason: undefined }, value: 'reopened' as const };
    });
    if (value !== 'active') return value === 'reopened';
    // Still active: the abort is being recorded (its session write comes next), or an earlier reopening got this far
    // — unless a retry() took the session meanwhile (it starts a run of its own).
    if (Date.now() >= deadline) return (await stateStore.getCurrentRun(sessionId))?.runId === runId;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
