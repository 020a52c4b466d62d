import { openCallsOf as openCalls, type PendingClientToolCall, type RunRecord, type SessionState, type StoredMessage } from '../../index.js';
import type { MessageView, PendingCallView, RunView, SessionView } from './operator-backend.js';

/**
 * A stored session as `sessions show` reports it (no conversation, no custom state).
 *
 * @example
 * const view = sessionViewOf(await stateStore.loadState('s1'));
 */
export function sessionViewOf(state: SessionState): SessionView {
  return {
    sessionId: state.sessionId,
    agentType: state.agentType,
    status: state.status,
    stepCount: state.stepCount,
    awaitingHuman: openCallsOf(state).length > 0 && state.status === 'active',
    ...(state.mode === undefined ? {} : { mode: state.mode }),
    ...(state.userId === undefined ? {} : { userId: state.userId }),
    ...(state.parentSessionId === undefined ? {} : { parentSessionId: state.parentSessionId }),
    ...(state.rootSessionId === undefined ? {} : { rootSessionId: state.rootSessionId }),
    ...(state.failureReason === undefined ? {} : { failureReason: state.failureReason }),
    ...(state.error === undefined ? {} : { error: state.error }),
    ...(state.output === undefined || state.output === null ? {} : { output: state.output }),
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
  };
}

/**
 * A run record as the CLI reports it.
 *
 * @example
 * const runs = (await stateStore.listRuns('s1')).runs.map(runViewOf);
 */
export function runViewOf(run: RunRecord): RunView {
  return {
    runId: run.runId,
    turn: run.turn,
    status: run.status,
    stepCount: run.stepCount,
    ...(run.completionReason === undefined ? {} : { completionReason: run.completionReason }),
    ...(run.error === undefined ? {} : { error: run.error }),
    startedAt: run.startedAt,
    ...(run.endedAt === undefined ? {} : { endedAt: run.endedAt }),
  };
}

/**
 * The calls of a session no one has answered yet (no `submittedAt`), oldest first.
 *
 * @example
 * openCallsOf(state).length; // 1
 */
export function openCallsOf(state: Pick<SessionState, 'pendingClientToolCalls'>): PendingClientToolCall[] {
  return byCreation(openCalls(state));
}

/** Calls oldest first. */
export function byCreation(calls: PendingClientToolCall[]): PendingClientToolCall[] {
  return calls.sort((left, right) => left.createdAt - right.createdAt);
}

/**
 * An open call as the CLI reports it, addressed to `sessionId` (the root the answer goes to).
 *
 * @example
 * const views = openCallsOf(state).map((call) => pendingViewOf(state.sessionId, call));
 */
export function pendingViewOf(sessionId: string, call: PendingClientToolCall): PendingCallView {
  return {
    sessionId,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    kind: call.kind,
    input: call.input,
    ...(call.approvalId === undefined ? {} : { approvalId: call.approvalId }),
    ...(call.ownerSessionId === sessionId ? {} : { ownerSessionId: call.ownerSessionId }),
    createdAt: call.createdAt,
    ...(call.deadlineAt === undefined ? {} : { deadlineAt: call.deadlineAt }),
  };
}

/**
 * A stored message as `sessions show --messages` reports it.
 *
 * @example
 * const messages = (await stateStore.getMessages('s1', { offset: 10 })).messages.map(messageViewOf);
 */
export function messageViewOf(message: StoredMessage): MessageView {
  const view: MessageView = { role: message.role, content: message.content };
  if (message.role === 'assistant' && message.toolCalls !== undefined && message.toolCalls.length > 0) {
    view.toolCalls = message.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments }));
  }
  if (message.role === 'tool') view.toolName = message.toolName;
  if (message.createdAt !== undefined) view.createdAt = message.createdAt;
  return view;
}
