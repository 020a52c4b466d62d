import type { SubmitToolResult, SubmitToolResultResponse } from '../index.js';
import type { PendingCallView } from './backend/operator-backend.js';
import { CliUsageError } from './cli-errors.js';
import type { ErrorReport } from './error-report.js';
import type { AnswerResult } from './render/views.js';

/**
 * Which approvals `approve`/`deny` answer in one session: the calls named with `--call` (an id that is not open is
 * still sent, so the executor says what became of it), else every open approval, narrowed by `--tool`.
 *
 * @example
 * selectApprovals(calls, { tool: 'pay' }); // [{ toolCallId: 'c1', approvalId: 'c1' }]
 */
export function selectApprovals(
  calls: readonly PendingCallView[],
  options: { calls?: readonly string[]; tool?: string },
): Array<{ toolCallId: string; approvalId: string }> {
  const approvals = calls.filter((call) => call.kind === 'approval' && (options.tool === undefined || call.toolName === options.tool));
  if (options.calls !== undefined && options.calls.length > 0) {
    return options.calls.map((toolCallId) => ({ toolCallId, approvalId: approvals.find((call) => call.toolCallId === toolCallId)?.approvalId ?? toolCallId }));
  }
  return approvals.map((call) => ({ toolCallId: call.toolCallId, approvalId: call.approvalId ?? call.toolCallId }));
}

/**
 * The result `submit` sends: the parsed `--result` JSON, the text of `--error`, or nothing else — exactly one.
 *
 * @throws CliUsageError `CLI_USAGE` for none or both, or `--result` that is not JSON (the message does not repeat it).
 * @example
 * clientResultOf({ result: '{"city":"Oslo"}' }); // { result: { city: 'Oslo' } }
 */
export function clientResultOf(options: { result?: string; error?: string }): { result: unknown } | { error: string } {
  if ((options.result === undefined) === (options.error === undefined)) throw new CliUsageError('submit takes exactly one of --result <json> (or --result-file) and --error <message>.');
  if (options.error !== undefined) return { error: options.error };
  try {
    return { result: JSON.parse(options.result ?? '') as unknown };
  } catch {
    throw new CliUsageError('--result must be JSON (quote a string: \'"text"\'); --result-file reads it from a file, - for stdin.');
  }
}

/**
 * The submission of an approval decision.
 *
 * @example
 * approvalSubmission('s1', { toolCallId: 'c1', approvalId: 'c1' }, false, 'Over budget');
 */
export function approvalSubmission(
  sessionId: string,
  call: { toolCallId: string; approvalId: string },
  approved: boolean,
  reason: string | undefined,
): SubmitToolResult {
  return { kind: 'approval-response', sessionId, toolCallId: call.toolCallId, approvalId: call.approvalId, approved, ...(reason === undefined ? {} : { reason }) };
}

/**
 * An executor answer as a result row: `accepted` is a success; `unknown_tool_call` and `already_completed` are
 * failures (`CLI_CALL_NOT_FOUND`, `CLI_ALREADY_ANSWERED`), so a script sees them in the exit code.
 *
 * @example
 * answerResultOf({ status: 'already_completed', sessionId: 's1', toolCallId: 'c1' }).error?.code; // 'CLI_ALREADY_ANSWERED'
 */
export function answerResultOf(response: SubmitToolResultResponse): AnswerResult {
  const result: AnswerResult = { sessionId: response.sessionId, toolCallId: response.toolCallId, status: response.status };
  if (response.next !== undefined) result.next = response.next;
  if (response.runId !== undefined) result.runId = response.runId;
  const error = refusalOf(response);
  if (error !== undefined) result.error = error;
  return result;
}

function refusalOf(response: SubmitToolResultResponse): ErrorReport | undefined {
  if (response.status === 'unknown_tool_call') return { code: 'CLI_CALL_NOT_FOUND', message: 'The session holds no such call (check `helix-agents sessions pending`).' };
  if (response.status === 'already_completed') return { code: 'CLI_ALREADY_ANSWERED', message: 'The call was answered before (or expired); nothing changed.' };
  return undefined;
}
