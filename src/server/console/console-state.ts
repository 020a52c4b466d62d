import { decideSessionOperation, sessionViewOf } from '../../orchestration/session-transitions.js';
import type { PendingClientToolCall, RunRecord, SessionState } from '../../types/session.js';
import type { ServerContext } from '../server-context.js';
import { CONSOLE_LIMITS, type ConsoleRunSummary, type ConsoleSessionState } from './console-api.js';
import { treeOpenCalls } from '../session-status.js';
import { consoleError } from './console-values.js';

/**
 * The open human calls a session waits for: its own and, for a root, its descendants' (`treeOpenCalls`, as
 * `GET /status` lists them), oldest first, at most `CONSOLE_LIMITS.pendingCalls`.
 *
 * @example
 * const open = await openCallsOfTree(context, root);
 */
export async function openCallsOfTree(context: ServerContext, state: SessionState): Promise<PendingClientToolCall[]> {
  const { calls } = await treeOpenCalls(context.options.stateStore, state, CONSOLE_LIMITS.pendingCalls);
  return calls.sort((left, right) => left.createdAt - right.createdAt).slice(0, CONSOLE_LIMITS.pendingCalls);
}

/**
 * A run as the session's current run.
 *
 * @example
 * const current = run === null ? null : runSummary(run);
 */
export function runSummary(run: RunRecord): ConsoleRunSummary {
  return {
    runId: run.runId,
    turn: run.turn,
    status: run.status,
    ...(run.completionReason === undefined ? {} : { completionReason: run.completionReason }),
    startedAt: run.startedAt,
    ...(run.endedAt === undefined ? {} : { endedAt: run.endedAt }),
  };
}

/**
 * The root of a session's tree as far as streams go: its id and its stream.
 *
 * @example
 * const root: StreamRoot = { sessionId: 's1', streamId: 's1' };
 */
export interface StreamRoot {
  sessionId: string;
  streamId: string;
}

/**
 * The stream root of a session (`ConsoleSessionAccess.root`).
 *
 * @example
 * const root = streamRootOf(access.root);
 */
export function streamRootOf(root: SessionState): StreamRoot {
  return { sessionId: root.sessionId, streamId: root.streamId ?? root.sessionId };
}

/**
 * The stream a session writes to: its own (`streamId`, or its id for a root), else its root's (a sub-agent's).
 *
 * @example
 * const streamId = sessionStreamId(access.state, streamRootOf(access.root));
 */
export function sessionStreamId(state: SessionState, root: StreamRoot): string {
  return state.streamId ?? (state.parentSessionId === undefined ? state.sessionId : root.streamId);
}

/**
 * The session's state as the console answers it, from the session, its current run, its open calls
 * (`openCallsOfTree`) and its tree's root. `canResume`/`canRetry` are the executor's own session state machine's answers.
 *
 * @example
 * const state = consoleSessionState(session, run, await openCallsOfTree(context, session), streamRootOf(root));
 */
export function consoleSessionState(state: SessionState, run: RunRecord | null, open: readonly PendingClientToolCall[], root: StreamRoot): ConsoleSessionState {
  const view = sessionViewOf(state, run);
  const streamId = sessionStreamId(state, root);
  const error = consoleError(state.error);
  const failed = error !== undefined || state.failureReason !== undefined;
  const interrupt = state.interruptContext;
  return {
    sessionId: state.sessionId,
    agentType: state.agentType,
    status: state.status,
    mode: state.mode ?? 'standard',
    stepCount: state.stepCount,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    ...(state.parentSessionId === undefined ? {} : { parentSessionId: state.parentSessionId }),
    ...(state.rootSessionId === undefined ? {} : { rootSessionId: state.rootSessionId }),
    ...(failed ? { failure: failureView(state.failureReason, error) } : {}),
    ...(interrupt === undefined ? {} : { interrupt: interruptView(interrupt) }),
    currentRun: run === null ? null : runSummary(run),
    awaitingHuman: open.length > 0,
    openCallCount: open.length,
    canResume: decideSessionOperation('resume', view).action === 'take_and_start',
    canRetry: decideSessionOperation('retry', view).action === 'restart',
    streamId,
    liveSessionId: state.parentSessionId === undefined ? state.sessionId : streamId === root.streamId ? root.sessionId : null,
  };
}

function failureView(reason: string | undefined, error: string | undefined): NonNullable<ConsoleSessionState['failure']> {
  return { ...(reason === undefined ? {} : { reason }), ...(error === undefined ? {} : { error }) };
}

function interruptView(interrupt: NonNullable<SessionState['interruptContext']>): NonNullable<ConsoleSessionState['interrupt']> {
  return { ...(interrupt.reason === undefined ? {} : { reason: consoleError(interrupt.reason) }), interruptedAt: interrupt.interruptedAt };
}

/**
 * Read a session's state afresh (after an action), as {@link consoleSessionState}; `root` defaults to the session's own.
 *
 * @example
 * const after = await readSessionState(context, 's1');
 */
export async function readSessionState(context: ServerContext, sessionId: string, root?: StreamRoot): Promise<ConsoleSessionState | null> {
  const { stateStore } = context.options;
  const [state, run] = await Promise.all([stateStore.loadState(sessionId), stateStore.getCurrentRun(sessionId)]);
  if (state === null) return null;
  return consoleSessionState(state, run, await openCallsOfTree(context, state), root ?? streamRootOf(state));
}
