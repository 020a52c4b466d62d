import { openCallsOf, openCallsOfDescendants } from '../store/open-calls.js';
import type { PendingClientToolCall, SessionState } from '../types/session.js';
import type { ServerContext } from './server-context.js';

/**
 * How many sub-agent and companion sessions below a root `GET /status` reads for their open calls (see
 * {@link treeOpenCalls} for what happens beyond).
 *
 * @example
 * const calls = await treeOpenCalls(stateStore, root); // reads at most STATUS_MAX_OWNERS + 1 sessions below the root
 */
export const STATUS_MAX_OWNERS = 100;

/**
 * The human calls a session's tree waits for, as `GET /status` lists them: the session's own open calls first (in the
 * order it holds them), then, for a root, its descendants' at any depth (sub-agents, their sub-agents, companions:
 * the root's call ownership map names every owner) oldest first, through the one definition
 * `openCallsOfDescendants`. A sub-agent's own `/status` lists only its own calls (the ownership map lives on the
 * root); submissions for any of them go to the root (`POST /submit-tool-result` with the root's session id routes
 * a descendant's call to its owner).
 *
 * Bound: the walk reads at most `maxOwners + 1` sessions below the root, the first ones in the ownership map's order
 * (ordered by call id, not by time). Only the calls of the first `maxOwners` of those that wait are listed;
 * `truncated` (`pendingToolCallsTruncated` on the wire) is true when the read found calls waiting in more sessions
 * than that. Calls of sessions beyond the read are neither listed nor flagged (the root's `awaiting…` flags then
 * miss them too); direct-mode `helix-agents sessions pending <root>` reads every owner.
 *
 * @example
 * const { calls, truncated } = await treeOpenCalls(stateStore, root);
 */
export async function treeOpenCalls(
  stateStore: ServerContext['options']['stateStore'],
  state: SessionState,
  maxOwners = STATUS_MAX_OWNERS,
): Promise<{ calls: PendingClientToolCall[]; truncated: boolean }> {
  const own = openCallsOf(state);
  if (state.parentSessionId !== undefined) return { calls: own, truncated: false };
  const below = await openCallsOfDescendants(stateStore, state, { maxOwners: maxOwners + 1 });
  const owners = [...new Set(below.map((call) => call.ownerSessionId))];
  const listed = new Set(owners.slice(0, maxOwners));
  const kept = below.filter((call) => listed.has(call.ownerSessionId)).sort((left, right) => left.createdAt - right.createdAt);
  return { calls: [...own, ...kept], truncated: owners.length > maxOwners };
}

/**
 * What `GET /status` answers (the shape is in `wire-schemas.ts`). The open human calls are the whole tree's
 * ({@link treeOpenCalls}): `awaitingClientTool`, `awaitingApproval` and `canResume` count a sub-agent's call as the
 * root's, and each of `pendingToolCalls` names the session whose run waits for it (`ownerSessionId`, its
 * `agentType`); `rootSessionId` is the session to submit answers to.
 *
 * @example
 * return c.json(await statusOfSession(context, state), 200);
 */
export async function statusOfSession(context: ServerContext, state: SessionState): Promise<Record<string, unknown>> {
  const { stateStore, streamManager } = context.options;
  const streamId = state.streamId ?? state.sessionId;
  const [run, stream, open] = await Promise.all([stateStore.getCurrentRun(state.sessionId), streamManager.getInfo(streamId), treeOpenCalls(stateStore, state)]);
  const calls = open.calls;
  const ended = state.failureReason === 'aborted' || state.status === 'failed' || state.status === 'completed';
  return {
    sessionId: state.sessionId,
    rootSessionId: state.rootSessionId ?? state.sessionId,
    agentType: state.agentType,
    status: state.status,
    stepCount: state.stepCount,
    run:
      run === null
        ? null
        : {
            runId: run.runId,
            status: run.status,
            turn: run.turn,
            stepCount: run.stepCount,
            startSequence: run.startSequence,
            ...(run.completionReason === undefined ? {} : { completionReason: run.completionReason }),
          },
    ...(state.output === undefined || state.output === null ? {} : { output: state.output }),
    ...(state.error === undefined ? {} : { error: state.error }),
    ...(state.failureReason === undefined ? {} : { failureReason: state.failureReason }),
    awaitingClientTool: calls.some((entry) => entry.kind === 'client'),
    awaitingApproval: calls.some((entry) => entry.kind === 'approval'),
    pendingToolCalls: calls.map(wireCall),
    pendingToolCallsTruncated: open.truncated,
    canResume: !ended && (state.status === 'interrupted' || state.status === 'paused' || calls.length > 0),
    stream: { streamId, status: stream?.status ?? 'active', lastSequence: stream?.lastSequence ?? 0 },
  };
}

function wireCall(entry: PendingClientToolCall): Record<string, unknown> {
  return {
    toolCallId: entry.toolCallId,
    toolName: entry.toolName,
    kind: entry.kind,
    input: entry.input,
    ...(entry.approvalId === undefined ? {} : { approvalId: entry.approvalId }),
    ownerSessionId: entry.ownerSessionId,
    agentType: entry.agentType,
    createdAt: entry.createdAt,
    ...(entry.deadlineAt === undefined ? {} : { deadlineAt: entry.deadlineAt }),
  };
}
