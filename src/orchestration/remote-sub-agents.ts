import type { RemoteAgentStatus } from '../types/remote.js';
import type { SubSessionRef } from '../types/session.js';
import type { PlannedRemoteCall, PlannedToolCall } from './step-plan-types.js';

/**
 * The deterministic session id of a remote sub-agent call: `${parentSessionId}-remote-${toolCallId}`, so a
 * recovered parent addresses the same remote session instead of starting another.
 *
 * @example
 * remoteSessionId('s1', 'call_7'); // 's1-remote-call_7'
 */
export function remoteSessionId(parentSessionId: string, toolCallId: string): string {
  return `${parentSessionId}-remote-${toolCallId}`;
}

/**
 * The stream key of a proxied remote chunk (its remote session and sequence), so a re-run stream window writes
 * every remote chunk into the parent's stream once.
 *
 * @example
 * remoteChunkKey('s1-remote-call_7', 42); // 'remote:s1-remote-call_7:42'
 */
export function remoteChunkKey(remoteSession: string, sequence: number): string {
  return `remote:${remoteSession}:${sequence}`;
}

/**
 * What became of a remote sub-agent call for the parent's model: its output, or an error (with the failure
 * reason when one applies, e.g. `client-tool-unsupported`).
 *
 * @example
 * const outcome: RemoteOutcome = { kind: 'error', error: 'The remote sub-agent failed: Max steps exceeded (3)' };
 */
export type RemoteOutcome = { kind: 'result'; output: unknown } | { kind: 'error'; error: string; failureReason?: string };

/**
 * A decision on a remote session's status: finished (with the ref status to record, and whether the remote run
 * must be aborted because nothing can answer it) or still going.
 *
 * @example
 * const decision: RemoteDecision = { kind: 'wait' };
 */
export type RemoteDecision =
  | { kind: 'done'; outcome: RemoteOutcome; refStatus: Exclude<SubSessionRef['status'], 'running' | 'paused_awaiting_client'>; abortRemote: boolean }
  | { kind: 'wait' };

/** Error text of a remote agent that waited for a client-executed tool. */
export const REMOTE_CLIENT_TOOL_MESSAGE = 'The remote sub-agent called a client-executed tool, which remote sub-agents do not support.';
/** Error text of a remote run that was aborted. */
export const REMOTE_TERMINATED_MESSAGE = 'The remote sub-agent was terminated before it finished.';
/** Error text of a remote run that was interrupted. */
export const REMOTE_INTERRUPTED_MESSAGE = 'The remote sub-agent was interrupted before it finished.';

/**
 * Decide from a remote `/status` answer: completed → its output; failed → an error (aborted → terminated);
 * interrupted → an error; waiting for a client tool → the `client-tool-unsupported` error (abort the remote run);
 * anything else (running, waiting for an approval) → wait.
 *
 * @example
 * decideRemoteStatus({ status: 'completed', output: { answer: 42 }, awaitingClientTool: false }); // done, result
 */
export function decideRemoteStatus(status: Pick<RemoteAgentStatus, 'status' | 'output' | 'error' | 'failureReason' | 'awaitingClientTool'>): RemoteDecision {
  if (status.status === 'completed') return { kind: 'done', outcome: { kind: 'result', output: status.output ?? null }, refStatus: 'completed', abortRemote: false };
  if (status.status === 'failed') {
    if (status.failureReason === 'aborted') return { kind: 'done', outcome: { kind: 'error', error: REMOTE_TERMINATED_MESSAGE, failureReason: 'aborted' }, refStatus: 'terminated', abortRemote: false };
    const error = `The remote sub-agent failed: ${(status.error ?? 'no error text').slice(0, 500)}`;
    return { kind: 'done', outcome: { kind: 'error', error, ...(status.failureReason === undefined ? {} : { failureReason: status.failureReason }) }, refStatus: 'failed', abortRemote: false };
  }
  if (status.awaitingClientTool) {
    return { kind: 'done', outcome: { kind: 'error', error: REMOTE_CLIENT_TOOL_MESSAGE, failureReason: 'client-tool-unsupported' }, refStatus: 'failed', abortRemote: true };
  }
  if (status.status === 'interrupted') return { kind: 'done', outcome: { kind: 'error', error: REMOTE_INTERRUPTED_MESSAGE, failureReason: 'interrupted' }, refStatus: 'interrupted', abortRemote: false };
  return { kind: 'wait' };
}

/**
 * Bound a remote wait: `timeout` once the call has waited `timeoutMs` since it started, `unreachable` once the
 * server has been unreachable for `unreachableTimeoutMs`, else `continue`. Times come from recorded steps.
 *
 * @example
 * decideRemoteWait({ now: 10_000, startedAt: 0, timeoutMs: 5_000, unreachableTimeoutMs: 1_000 }); // 'timeout'
 */
export function decideRemoteWait(input: { now: number; startedAt: number; timeoutMs: number; unreachableSince?: number; unreachableTimeoutMs: number }): 'continue' | 'timeout' | 'unreachable' {
  if (input.unreachableSince !== undefined && input.now - input.unreachableSince >= input.unreachableTimeoutMs) return 'unreachable';
  if (input.now - input.startedAt >= input.timeoutMs) return 'timeout';
  return 'continue';
}

/**
 * Whether a finished remote run's chunks have all been proxied, so the call may end: the remote server ended the
 * stream (after the run's last chunk), the proxied sequence reached the stream's `lastSequence` in the same status
 * answer, or one whole window was already spent reading on after the run had finished (`draining`; the stream's
 * tail can be sequences without a chunk). A window cut by its time limit just before the run's last chunks is
 * otherwise followed by one more window that reads them.
 *
 * @example
 * remoteStreamDrained({ streamEnded: false, proxiedSequence: 40, remoteLastSequence: 42, draining: false }); // false
 */
export function remoteStreamDrained(input: { streamEnded: boolean; proxiedSequence: number; remoteLastSequence: number; draining: boolean }): boolean {
  return input.streamEnded || input.draining || input.proxiedSequence >= input.remoteLastSequence;
}

/** Error text of a remote call that waited longer than its `timeoutMs`. */
export const REMOTE_TIMEOUT_MESSAGE = 'The remote sub-agent did not finish in time and was interrupted.';
/** Error text of a remote server that stayed unreachable. */
export const REMOTE_UNREACHABLE_MESSAGE = 'The remote agent server could not be reached.';

/**
 * Plan a remote call: its deterministic remote session id and its input message (the validated input as JSON).
 *
 * @example
 * plannedRemoteCall(call, 'researcher', 's1').remoteSessionId; // 's1-remote-c1'
 */
export function plannedRemoteCall(call: PlannedToolCall, agentType: string, sessionId: string): PlannedRemoteCall {
  return { ...call, agentType, remoteSessionId: remoteSessionId(sessionId, call.toolCallId), childMessage: JSON.stringify(call.input) };
}
