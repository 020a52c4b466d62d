import type { AgentResult, SuspendedCall } from '../types/result.js';
import type { PendingClientToolCall } from '../types/session.js';

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
