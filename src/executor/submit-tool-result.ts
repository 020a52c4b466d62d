import { notifySubmitted } from '../channels/call-messages.js';
import { InvalidSubmissionError } from '../errors/index.js';
import type { Logger } from '../hooks/types.js';
import { markCallsCompleted } from '../orchestration/hitl-decisions.js';
import { updateSessionIfExists, updateSessionWithRetry } from '../store/update-session-with-retry.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { PendingClientToolCall, SessionState } from '../types/session.js';

/**
 * A client's answer to a pending call: a client-executed tool's result (or error), or an approval decision.
 * Always addressed to the ROOT session; calls owned by sub-agent sessions are routed through the root's
 * ownership map.
 *
 * @example
 * const submission: SubmitToolResult = { kind: 'approval-response', sessionId, toolCallId, approvalId: toolCallId, approved: true };
 */
export type SubmitToolResult =
  | { kind: 'client-tool-result'; sessionId: string; toolCallId: string; result?: unknown; error?: string }
  | { kind: 'approval-response'; sessionId: string; toolCallId: string; approvalId: string; approved: boolean; reason?: string };

/**
 * The outcome of a submission: `accepted` (first writer), `already_completed` (answered before, or expired),
 * `unknown_tool_call` (no such pending call).
 *
 * @example
 * const { status } = await executor.submitToolResult(submission); // 'accepted'
 */
export interface SubmitToolResultResponse {
  status: 'accepted' | 'already_completed' | 'unknown_tool_call';
  sessionId: string;
  toolCallId: string;
  /**
   * Set when `accepted`: what happens next. `continues` — the run waits warm and goes on by itself (once its
   * other calls are answered); `needs_resume` — the run had parked: call `resume()` (after the last answer);
   * `resumed` — the executor's `autoResumeOnSubmit` resumed it (`runId` is the new run).
   */
  next?: 'continues' | 'needs_resume' | 'resumed';
  /** The run that continues the session when `next` is `resumed`. */
  runId?: string;
}

const MAX_CAS_ATTEMPTS = 100;

/**
 * Resolve the DBOS workflow that owns a session's pending calls: the workflow of the session's current run
 * (standard-mode ids are deterministic), or `metadata.dbosWorkflowId` for persistent sessions. `null` when
 * the session has no live workflow (parked or ended).
 *
 * @example
 * const workflowId = await resolveOwnerWorkflowId(stateStore, childSessionId, 'researcher');
 */
export async function resolveOwnerWorkflowId(stateStore: SessionStateStore, ownerSessionId: string, _agentType?: string): Promise<string | null> {
  const state = await stateStore.loadState(ownerSessionId);
  const persistent = state?.mode === 'persistent' ? state.metadata?.dbosWorkflowId : undefined;
  if (persistent !== undefined) return persistent;
  const run = await stateStore.getCurrentRun(ownerSessionId);
  return run !== null && run.status === 'running' && run.workflowId !== undefined ? run.workflowId : null;
}

/**
 * Exactly-once submission: validate, stamp `submittedAt` on the pending entry with a version CAS (first
 * writer wins), mark the call in the root's `completedClientToolCalls` (survives restarts), then wake the
 * owner workflow with `DBOS.send(workflowId, …, toolCallId, idempotencyKey)`.
 *
 * @throws InvalidSubmissionError `INVALID_SUBMISSION` for a malformed payload or a kind/approvalId mismatch.
 * @example
 * await submitToolResult(stateStore, logger, { kind: 'client-tool-result', sessionId, toolCallId, result: { ok: true } });
 */
export async function submitToolResult(stateStore: SessionStateStore, logger: Logger, params: SubmitToolResult): Promise<SubmitToolResultResponse> {
  const submission = validateSubmission(params);
  const { sessionId, toolCallId } = params;
  const respond = (status: SubmitToolResultResponse['status']): SubmitToolResultResponse => ({ status, sessionId, toolCallId });
  const root = await stateStore.loadState(sessionId);
  if (root === null) return respond('unknown_tool_call');
  if (root.completedClientToolCalls?.[toolCallId] !== undefined) return respond('already_completed');
  const ownerId = root.clientToolCallOwnership?.[toolCallId] ?? sessionId;

  const stamped = await stampSubmission(stateStore, root, ownerId, params, submission);
  if (stamped !== 'accepted') return respond(stamped);
  if (ownerId !== sessionId) {
    await updateSessionWithRetry(stateStore, sessionId, (root) => {
      if (root.completedClientToolCalls?.[toolCallId] !== undefined) return { write: null, value: undefined };
      return { write: { completedClientToolCalls: markCallsCompleted(root.completedClientToolCalls, [toolCallId], Date.now()) }, value: undefined };
    });
  }
  logger.info('client_tool.submitted', { sessionId, toolCallId, kind: params.kind });

  const workflowId = await resolveOwnerWorkflowId(stateStore, ownerId);
  if (workflowId !== null) {
    await notifySubmitted(workflowId, toolCallId);
  }
  return respond('accepted');
}

/**
 * Stamp `submittedAt` and the submission on the owner's pending entry (version CAS: first writer wins; the root
 * owner also records the call completed). A call without an entry answers from the root: read again unless it
 * was gone at the first attempt (then `root`, read just before, has no completion).
 */
async function stampSubmission(
  stateStore: SessionStateStore,
  root: SessionState,
  ownerId: string,
  params: SubmitToolResult,
  submission: NonNullable<PendingClientToolCall['submission']>,
): Promise<SubmitToolResultResponse['status']> {
  const { sessionId, toolCallId } = params;
  let decided = 0;
  const outcome = await updateSessionIfExists(
    stateStore,
    ownerId,
    (owner, attempt) => {
      decided = attempt;
      const entry = owner.pendingClientToolCalls?.[toolCallId];
      if (entry === undefined) return { write: null, value: 'gone' as const };
      if (entry.submittedAt !== undefined) return { write: null, value: 'already_completed' as const };
      assertMatches(entry, params);
      const now = Date.now();
      const stamped: PendingClientToolCall = { ...entry, submittedAt: now, submission };
      const completed = ownerId === sessionId ? { completedClientToolCalls: markCallsCompleted(owner.completedClientToolCalls, [toolCallId], now) } : {};
      return { write: { pendingClientToolCalls: { ...owner.pendingClientToolCalls, [toolCallId]: stamped }, ...completed }, value: 'accepted' as const };
    },
    { ...(ownerId === sessionId ? { knownState: root } : {}), maxAttempts: MAX_CAS_ATTEMPTS },
  );
  if (outcome !== null && outcome.value !== 'gone') return outcome.value;
  const goneAtFirstAttempt = (outcome === null ? decided + 1 : decided) === 1;
  const rootNow = goneAtFirstAttempt ? root : await stateStore.loadState(sessionId);
  return rootNow?.completedClientToolCalls?.[toolCallId] !== undefined ? 'already_completed' : 'unknown_tool_call';
}

function assertMatches(entry: PendingClientToolCall, params: SubmitToolResult): void {
  const expected = entry.kind === 'client' ? 'client-tool-result' : 'approval-response';
  if (params.kind !== expected) {
    throw new InvalidSubmissionError(`This tool call waits for a "${expected}" submission, not "${params.kind}".`, { toolCallId: params.toolCallId });
  }
  if (params.kind === 'approval-response' && params.approvalId !== (entry.approvalId ?? entry.toolCallId)) {
    throw new InvalidSubmissionError('approvalId does not match the pending approval request; send the approvalId of the tool_approval_request.', {
      toolCallId: params.toolCallId,
    });
  }
}

function validateSubmission(params: unknown): NonNullable<PendingClientToolCall['submission']> {
  if (typeof params !== 'object' || params === null) throw new InvalidSubmissionError('A submission must be an object.');
  const value = params as Record<string, unknown>;
  for (const field of ['sessionId', 'toolCallId'] as const) {
    if (typeof value[field] !== 'string' || value[field] === '') throw new InvalidSubmissionError(`${field} must be a non-empty string.`);
  }
  if (value.kind === 'client-tool-result') {
    if (value.error !== undefined && typeof value.error !== 'string') throw new InvalidSubmissionError('error must be a string when given.');
    if (value.error !== undefined && value.result !== undefined) throw new InvalidSubmissionError('Send either result or error, not both.');
    let result: unknown = null;
    if (value.result !== undefined) {
      try {
        result = JSON.parse(JSON.stringify(value.result)) as unknown;
      } catch {
        throw new InvalidSubmissionError('result must be JSON-serializable.');
      }
    }
    return value.error === undefined ? { kind: 'client-tool-result', result } : { kind: 'client-tool-result', error: value.error };
  }
  if (value.kind === 'approval-response') {
    if (typeof value.approvalId !== 'string' || value.approvalId === '') throw new InvalidSubmissionError('approvalId must be a non-empty string.');
    if (typeof value.approved !== 'boolean') throw new InvalidSubmissionError('approved must be a boolean.');
    if (value.reason !== undefined && typeof value.reason !== 'string') throw new InvalidSubmissionError('reason must be a string when given.');
    return { kind: 'approval-response', approved: value.approved, ...(value.reason === undefined ? {} : { reason: value.reason }) };
  }
  throw new InvalidSubmissionError("kind must be 'client-tool-result' or 'approval-response'.");
}
