import type { Message, ToolResultMessage } from '../types/message.js';
import type { SuspendedCall } from '../types/result.js';
import type { PendingClientToolCall } from '../types/session.js';
import { findUnpairedFinishCallId, synthesizeFinishToolResult } from './finish-history.js';
import {
  APPROVAL_DENIED_MESSAGE,
  approvalDeniedMessage,
  CLIENT_TOOL_TIMEOUT_MESSAGE,
  type HitlCall,
  type HitlResolution,
  type Submission,
} from './hitl-types.js';

/** The pending/completed maps of a session, as the HITL decisions read them. */
export interface HitlSessionView {
  pendingClientToolCalls?: Record<string, PendingClientToolCall>;
  completedClientToolCalls?: Record<string, number>;
}

/** Who waits for the calls being announced (stamped on each new pending entry). */
export interface AnnouncementContext {
  ownerSessionId: string;
  agentType: string;
  runId: string;
  createdAt: number;
}

/**
 * Which of a step's human-answered calls to announce (stream + onAgentSuspended), and the pending map to write.
 * A call is announced when it has no entry and was never completed, or when its entry still has no submission
 * (a resumed run settling a parked step re-announces only what still waits). New entries are added for calls
 * with neither an entry nor a completion; `pending` is `null` when nothing changes.
 *
 * @example
 * const { announce, pending } = planHitlAnnouncement(calls, state, { ownerSessionId: 's1', agentType: 'a', runId: 'r1', createdAt: now });
 */
export function planHitlAnnouncement(
  calls: readonly HitlCall[],
  session: HitlSessionView,
  context: AnnouncementContext,
): { announce: HitlCall[]; pending: Record<string, PendingClientToolCall> | null } {
  const existing = session.pendingClientToolCalls ?? {};
  const completed = session.completedClientToolCalls ?? {};
  const announce = calls.filter(({ call }) => {
    const entry = existing[call.toolCallId];
    return entry === undefined ? completed[call.toolCallId] === undefined : entry.submission === undefined;
  });
  const pending = { ...existing };
  let changed = false;
  for (const { call, kind, approvalId, timeoutMs } of calls) {
    if (pending[call.toolCallId] !== undefined || completed[call.toolCallId] !== undefined) continue;
    pending[call.toolCallId] = {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      kind,
      input: call.input,
      ownerSessionId: context.ownerSessionId,
      agentType: context.agentType,
      runId: context.runId,
      approvalId,
      createdAt: context.createdAt,
      ...(timeoutMs === undefined ? {} : { deadlineAt: context.createdAt + timeoutMs }),
    };
    changed = true;
  }
  return { announce, pending: changed ? pending : null };
}

/**
 * The completed-calls map with `toolCallIds` recorded as completed at `at` (the one merge every writer of
 * `completedClientToolCalls` uses): earlier entries are kept, a listed id takes `at`, `undefined` counts as empty.
 *
 * @example
 * markCallsCompleted(state.completedClientToolCalls, ['c2'], now); // { c1: 100, c2: now }
 */
export function markCallsCompleted(
  completed: Readonly<Record<string, number>> | undefined,
  toolCallIds: readonly string[],
  at: number,
): Record<string, number> {
  return { ...(completed ?? {}), ...Object.fromEntries(toolCallIds.map((id) => [id, at])) };
}

/**
 * Whether a pending call is answered at `now`: it has a submission, or its client deadline passed.
 *
 * @example
 * isCallAnswered(entry, Date.now()); // true once submitted or expired
 */
export function isCallAnswered(entry: PendingClientToolCall | undefined, now: number): boolean {
  return entry?.submission !== undefined || (entry?.deadlineAt !== undefined && entry.deadlineAt <= now);
}

/**
 * The answers among `toolCallIds` at `now`: submissions by id, and the ids whose deadline passed unanswered.
 *
 * @example
 * const { submissions, expired } = collectAnswers(['c1', 'c2'], state.pendingClientToolCalls, now);
 */
export function collectAnswers(
  toolCallIds: readonly string[],
  pending: Record<string, PendingClientToolCall> | undefined,
  now: number,
): { submissions: Record<string, Submission>; expired: string[] } {
  const submissions: Record<string, Submission> = {};
  const expired: string[] = [];
  for (const id of toolCallIds) {
    const entry = pending?.[id];
    if (entry?.submission !== undefined) submissions[id] = entry.submission;
    else if (entry?.deadlineAt !== undefined && entry.deadlineAt <= now) expired.push(id);
  }
  return { submissions, expired };
}

/**
 * The calls still waiting for an answer, in order.
 *
 * @example
 * const open = openCallIds(ids, { submissions, expired }); // [] once every call is answered
 */
export function openCallIds(toolCallIds: readonly string[], answers: { submissions: Record<string, Submission>; expired: readonly string[] }): string[] {
  return toolCallIds.filter((id) => answers.submissions[id] === undefined && !answers.expired.includes(id));
}

/**
 * Resolve one human-answered call: approved → `run` (execute the server tool), denied → the reference denial
 * error with the human's reason (bounded), a client result/error → the call's result, expired → the timeout error, nothing → an error.
 *
 * @example
 * resolveSubmission(hitl, { kind: 'approval-response', approved: true }, false); // { call: hitl, outcome: 'run' }
 */
export function resolveSubmission(hitl: HitlCall, submission: Submission | undefined, expired: boolean): HitlResolution {
  if (submission === undefined) {
    return { call: hitl, outcome: 'error', error: expired ? CLIENT_TOOL_TIMEOUT_MESSAGE : 'No result was submitted for this tool call.' };
  }
  if (hitl.kind === 'approval') {
    return submission.approved === true ? { call: hitl, outcome: 'run' } : { call: hitl, outcome: 'error', error: approvalDeniedMessage(submission.reason) };
  }
  if (submission.error !== undefined) return { call: hitl, outcome: 'error', error: submission.error };
  return { call: hitl, outcome: 'result', result: submission.result ?? null };
}

/**
 * Whether afterTool fires for a resolution inside the resolve step: not for approved calls (they fire it when
 * the tool runs) and not for denied approvals (cross-runtime contract: a denial skips execute and afterTool).
 *
 * @example
 * firesAfterToolOnResolve({ call: hitl, outcome: 'result', result: 1 }); // true
 */
export function firesAfterToolOnResolve(resolution: HitlResolution): boolean {
  if (resolution.outcome === 'run') return false;
  return !(resolution.call.kind === 'approval' && resolution.error?.startsWith(APPROVAL_DENIED_MESSAGE) === true);
}

/** Result text of a tool call whose run ended before it got a result. */
export const UNANSWERED_CALL_MESSAGE = 'This tool call got no result: the run that made it ended first.';

/**
 * Results for the tool calls of the last assistant message that have none: the `__finish__` heal always, every
 * other call too when `allCalls` (a continued run whose parked step was not settled). Ids `${runId}:heal:${callId}`
 * make a repeated heal a no-op.
 *
 * @example
 * const healed = healUnpairedCalls(history, 'run-2', true);
 */
export function healUnpairedCalls(history: readonly Message[], runId: string, allCalls: boolean): ToolResultMessage[] {
  const finishCallId = findUnpairedFinishCallId(history);
  const lastAssistant = history.findLastIndex((message) => message.role === 'assistant');
  const assistant = history[lastAssistant];
  if (!allCalls || assistant?.role !== 'assistant') {
    return finishCallId === undefined ? [] : [{ ...synthesizeFinishToolResult(finishCallId), id: `${runId}:heal:${finishCallId}` }];
  }
  const answered = new Set(history.slice(lastAssistant + 1).flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : [])));
  return (assistant.toolCalls ?? [])
    .filter((call) => !answered.has(call.id))
    .map((call): ToolResultMessage =>
      call.id === finishCallId
        ? { ...synthesizeFinishToolResult(call.id), id: `${runId}:heal:${call.id}` }
        : { id: `${runId}:heal:${call.id}`, role: 'tool', toolCallId: call.id, toolName: call.name, content: UNANSWERED_CALL_MESSAGE, isError: true },
    );
}

/**
 * The calls a step waits for as results and the `run_suspended` chunk name them (`approvalId` for approvals only).
 *
 * @example
 * suspendedCallsOf(suspension.hitlCalls); // [{ toolCallId: 'c1', toolName: 'transfer', kind: 'approval', approvalId: 'c1' }]
 */
export function suspendedCallsOf(calls: readonly HitlCall[]): SuspendedCall[] {
  return calls.map(({ call, kind, approvalId }) => ({
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    kind,
    ...(kind === 'approval' ? { approvalId } : {}),
  }));
}
