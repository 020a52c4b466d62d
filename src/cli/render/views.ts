import type { SessionListPage } from '../../index.js';
import type { PendingCallView, PruneOutcome, SessionDetail } from '../backend/operator-backend.js';
import type { ErrorReport } from '../error-report.js';
import { renderFields, renderTable } from './table.js';
import { formatAge, formatTime, inlineValue } from './values.js';

/**
 * The outcome of one answer (approve, deny, submit): the executor's status, or the error that stopped it.
 *
 * @example
 * const result: AnswerResult = { sessionId: 's1', toolCallId: 'c1', status: 'accepted', next: 'continues' };
 */
export interface AnswerResult {
  sessionId: string;
  toolCallId?: string;
  status?: 'accepted' | 'already_completed' | 'unknown_tool_call';
  next?: 'continues' | 'needs_resume' | 'resumed';
  runId?: string;
  error?: ErrorReport;
}

/**
 * The outcome of interrupt or abort on one session.
 *
 * @example
 * const result: ControlResult = { sessionId: 's1', status: 'aborted' };
 */
export interface ControlResult {
  sessionId: string;
  status?: 'interrupt_requested' | 'aborted';
  error?: ErrorReport;
}

/**
 * A page of sessions as a table, with the count and the cursor of the next page.
 *
 * @example
 * console.log(sessionsTable(page, Date.now()));
 */
export function sessionsTable(page: SessionListPage, now: number): string {
  const table = renderTable(
    [{ header: 'SESSION' }, { header: 'AGENT', maxWidth: 24 }, { header: 'STATUS' }, { header: 'HUMAN' }, { header: 'STEPS', align: 'right' }, { header: 'UPDATED', align: 'right' }, { header: 'USER', maxWidth: 24 }],
    page.sessions.map((row) => [row.sessionId, row.agentType, statusOf(row.status, row.failureReason), row.awaitingHuman ? 'waiting' : '-', String(row.stepCount), `${formatAge(row.updatedAt, now)} ago`, row.userId ?? '-']),
  );
  const footer = `${page.sessions.length} of ${page.total} session(s)${page.nextCursor === undefined ? '' : `; next page: --cursor ${page.nextCursor}`}`;
  return `${table}\n${footer}`;
}

/**
 * A session's detail as sections: fields, current run, runs, open human calls, sub-agents, messages.
 *
 * @example
 * console.log(sessionDetailText(detail, Date.now()));
 */
export function sessionDetailText(detail: SessionDetail, now: number): string {
  const { session, currentRun } = detail;
  const sections = [
    renderFields([
      ['Session', session.sessionId],
      ['Agent', session.agentType],
      ['Status', statusOf(session.status, session.failureReason)],
      ['Mode', session.mode],
      ['User', session.userId],
      ['Parent', session.parentSessionId],
      ['Steps', String(session.stepCount)],
      ['Created', session.createdAt === undefined ? undefined : formatTime(session.createdAt)],
      ['Updated', session.updatedAt === undefined ? undefined : `${formatTime(session.updatedAt)} (${formatAge(session.updatedAt, now)} ago)`],
      ['Error', session.error],
      ['Output', session.output === undefined ? undefined : inlineValue(session.output)],
      ['Current run', currentRun === null ? 'none' : `${currentRun.runId} ${currentRun.status}${currentRun.completionReason === undefined ? '' : ` (${currentRun.completionReason})`}`],
    ]),
  ];
  if (detail.runs !== undefined) {
    const rows = detail.runs.map((run) => [String(run.turn ?? '-'), run.runId, run.status, run.completionReason ?? '-', String(run.stepCount ?? '-'), formatTime(run.startedAt), run.endedAt === undefined || run.startedAt === undefined ? '-' : `${run.endedAt - run.startedAt} ms`]);
    sections.push(`Runs\n${renderTable([{ header: 'TURN', align: 'right' }, { header: 'RUN' }, { header: 'STATUS' }, { header: 'REASON' }, { header: 'STEPS', align: 'right' }, { header: 'STARTED' }, { header: 'DURATION', align: 'right' }], rows)}`);
  }
  sections.push(`Waiting for a human\n${pendingTable(detail.pendingCalls, now)}`);
  if (detail.subSessions !== undefined && detail.subSessions.length > 0) {
    const rows = detail.subSessions.map((ref) => [ref.subSessionId, ref.agentType, ref.mode, ref.status, ref.error ?? '-']);
    sections.push(`Sub-agents\n${renderTable([{ header: 'SESSION' }, { header: 'AGENT' }, { header: 'MODE' }, { header: 'STATUS' }, { header: 'ERROR' }], rows)}`);
  }
  if (detail.messages !== undefined) {
    const rows = detail.messages.map((message) => [message.role, message.toolName ?? (message.toolCalls ?? []).map((call) => call.name).join(', '), inlineValue(message.content)]);
    sections.push(`Messages\n${renderTable([{ header: 'ROLE' }, { header: 'TOOLS', maxWidth: 32 }, { header: 'CONTENT', maxWidth: 80 }], rows)}`);
  }
  return sections.join('\n\n');
}

/**
 * Open human calls as a table (the input shown inline, cut to fit).
 *
 * @example
 * console.log(pendingTable(calls, Date.now()));
 */
export function pendingTable(calls: readonly PendingCallView[], now: number): string {
  return renderTable(
    [{ header: 'SESSION' }, { header: 'CALL' }, { header: 'TOOL', maxWidth: 32 }, { header: 'KIND' }, { header: 'INPUT', maxWidth: 60 }, { header: 'WAITING', align: 'right' }],
    calls.map((call) => [call.sessionId, call.toolCallId, call.toolName, call.kind, inlineValue(call.input), call.createdAt === undefined ? '-' : formatAge(call.createdAt, now)]),
  );
}

/**
 * Answers (approve, deny, submit) as a table: the executor's status and what happens next, or the error.
 *
 * @example
 * console.log(answersTable([{ sessionId: 's1', toolCallId: 'c1', status: 'accepted', next: 'continues' }]));
 */
export function answersTable(results: readonly AnswerResult[]): string {
  return renderTable(
    [{ header: 'SESSION' }, { header: 'CALL' }, { header: 'RESULT' }, { header: 'NEXT', maxWidth: 80 }],
    results.map((result) => [result.sessionId, result.toolCallId ?? '-', result.error?.code ?? result.status ?? '-', result.error?.message ?? nextOf(result)]),
  );
}

/**
 * Interrupt or abort outcomes as a table.
 *
 * @example
 * console.log(controlTable([{ sessionId: 's1', status: 'aborted' }]));
 */
export function controlTable(results: readonly ControlResult[]): string {
  return renderTable([{ header: 'SESSION' }, { header: 'RESULT' }, { header: 'DETAIL', maxWidth: 80 }], results.map((result) => [result.sessionId, result.error?.code ?? result.status ?? '-', result.error?.message ?? '-']));
}

/**
 * A prune's totals in one line.
 *
 * @example
 * pruneText({ sessions: 2, chunksDeleted: 40, workflowsDeleted: 3 }); // 'Pruned 2 session(s): 40 stream chunk(s) and 3 DBOS workflow record(s) deleted.'
 */
export function pruneText(outcome: PruneOutcome): string {
  return `Pruned ${outcome.sessions} session(s): ${outcome.chunksDeleted} stream chunk(s) and ${outcome.workflowsDeleted} DBOS workflow record(s) deleted.`;
}

function statusOf(status: string, failureReason: string | undefined): string {
  return failureReason === undefined ? status : `${status} (${failureReason})`;
}

function nextOf(result: AnswerResult): string {
  if (result.next === 'needs_resume') return 'needs_resume: run `helix-agents resume` through --server';
  if (result.next === 'resumed') return `resumed (run ${result.runId ?? '?'})`;
  return result.next ?? (result.runId === undefined ? '-' : `run ${result.runId}`);
}
