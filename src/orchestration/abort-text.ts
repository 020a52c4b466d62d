import type { AgentResult } from '../types/result.js';
import type { RunRecord } from '../types/session.js';

/** The first word of every abort's error text (and of the interrupt flag reason `abort()` sets). */
const ABORTED = 'Aborted';

/**
 * The error an aborted run records, streams and returns: `Aborted`, or `Aborted: <reason>`.
 *
 * @example
 * abortErrorText('cancelled by user'); // 'Aborted: cancelled by user'
 */
export function abortErrorText(reason?: string): string {
  return reason === undefined ? ABORTED : `${ABORTED}: ${reason}`;
}

/**
 * Whether an interrupt flag's reason was set by `abort()` (which sets the flag, then cancels the run's workflow and
 * records the abort itself), so a cancelled workflow leaves the recording to it.
 *
 * @example
 * isAbortReason(abortErrorText()); // true
 */
export function isAbortReason(reason: string | undefined): boolean {
  return reason === ABORTED || reason?.startsWith(`${ABORTED}: `) === true;
}

/** The error text of a run whose DBOS workflow was cancelled from outside the executor (`dbos workflow cancel`). */
export const DBOS_CANCELLED_ERROR = "Aborted: the run's DBOS workflow was cancelled (DBOS.cancelWorkflow or dbos workflow cancel).";

/**
 * The result of a run abort() ended: `aborted`, with the steps and the error its run record holds (none when it has no
 * record).
 *
 * @example
 * abortedResultOf(handle, await stateStore.getRun(handle.sessionId, handle.runId)); // a handle's
 * abortedResultOf(scope, null); // a run aborted before its begin
 */
export function abortedResultOf<TOutput>(
  at: { sessionId: string; runId: string },
  run: Pick<RunRecord, 'stepCount' | 'error'> | null,
): AgentResult<TOutput> {
  return {
    sessionId: at.sessionId,
    runId: at.runId,
    status: 'aborted',
    completionReason: 'aborted',
    stepCount: run?.stepCount ?? 0,
    ...(run?.error === undefined ? {} : { error: run.error }),
  };
}
