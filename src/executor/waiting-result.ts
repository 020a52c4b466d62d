import type { AgentResult, SuspendedCall } from '../types/result.js';
import type { PendingClientToolCall, RunRecord } from '../types/session.js';
import type { SessionStateStore } from '../store/state-store.js';
import { openCallsOf, openCallsOfDescendants } from '../store/open-calls.js';

/**
 * The result a handle reports while its run waits warm for client tool results or approvals: `suspended_client_tool`
 * with the open calls' ids (and the parked step's id when the session has one).
 *
 * @example
 * return open.length === 0 ? undefined : waitingResultOf({ sessionId, runId, stepCount: run.stepCount, suspendedStepId }, open);
 */
export function waitingResultOf<TOutput>(
  run: { sessionId: string; runId: string; stepCount: number; suspendedStepId?: string | undefined },
  open: readonly PendingClientToolCall[],
): AgentResult<TOutput> {
  return {
    sessionId: run.sessionId,
    runId: run.runId,
    status: 'suspended_client_tool',
    completionReason: 'suspended',
    stepCount: run.stepCount,
    suspended: {
      reason: 'client_tool',
      toolCallIds: open.map((entry) => entry.toolCallId),
      calls: open.filter((entry) => entry.ownerSessionId === run.sessionId).map(suspendedCallOf),
      ...(run.suspendedStepId === undefined ? {} : { stepId: run.suspendedStepId }),
    },
  };
}

/**
 * A pending call as a result or a `run_suspended` chunk names it.
 *
 * @example
 * suspendedCallOf(entry); // { toolCallId: 'c1', toolName: 'transfer', kind: 'approval', approvalId: 'c1' }
 */
export function suspendedCallOf(entry: Pick<PendingClientToolCall, 'toolCallId' | 'toolName' | 'kind' | 'approvalId'>): SuspendedCall {
  return {
    toolCallId: entry.toolCallId,
    toolName: entry.toolName,
    kind: entry.kind,
    ...(entry.kind === 'approval' ? { approvalId: entry.approvalId ?? entry.toolCallId } : {}),
  };
}

/**
 * What the store says of a `running` run: {@link waitingResultOf} its open calls (its session's own, and its
 * sub-agents' it owns), or `undefined` while none is open or an interrupt of the session is requested (the run is
 * ending: its outcome is that, not the wait).
 *
 * @example
 * const waiting = run.status === 'running' ? await storedWaitingResult(stateStore, run) : undefined;
 */
export async function storedWaitingResult<TOutput>(
  stateStore: SessionStateStore,
  run: Pick<RunRecord, 'sessionId' | 'runId' | 'stepCount'>,
): Promise<AgentResult<TOutput> | undefined> {
  const state = await stateStore.loadState(run.sessionId);
  const open = [...openCallsOf(state), ...(state === null ? [] : await openCallsOfDescendants(stateStore, state))];
  if (open.length === 0 || (await stateStore.isInterruptRequested(run.sessionId))) return undefined;
  const { sessionId, runId, stepCount } = run;
  return waitingResultOf({ sessionId, runId, stepCount, suspendedStepId: state?.suspendedStepId }, open);
}
