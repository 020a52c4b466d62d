import type { UsageRecord } from '../../types/usage.js';
import type { ServerContext } from '../server-context.js';
import type { ConsoleSessionAccess } from './console-access.js';
import { CONSOLE_LIMITS, type ConsoleSessionDetailResponse, type ConsoleSessionView } from './console-api.js';
import { historySteps } from './console-history.js';
import { consoleSessionState, openCallsOfTree, streamRootOf } from './console-state.js';
import { checkpointTimeline, runTimeline, sessionUsage } from './console-timeline.js';
import { sessionTree } from './console-tree.js';
import { consoleValue } from './console-values.js';

/**
 * `GET {path}/api/sessions/:id`: the session page (see `ConsoleSessionDetailResponse`). The history page defaults to
 * the last `CONSOLE_LIMITS.defaultMessages` messages; usage comes from the server's `usageStore` (null without one).
 *
 * @example
 * const page = await consoleSessionDetail(context, await consoleSession(context, principal, 's1'), {});
 */
export async function consoleSessionDetail(
  context: ServerContext,
  { state, root }: ConsoleSessionAccess,
  query: { messageOffset?: number; messageLimit?: number },
): Promise<ConsoleSessionDetailResponse> {
  const { stateStore, usageStore } = context.options;
  const sessionId = state.sessionId;
  const isRoot = state.parentSessionId === undefined;
  const totalMessages = await stateStore.getMessageCount(sessionId);
  const limit = query.messageLimit ?? CONSOLE_LIMITS.defaultMessages;
  const offset = Math.min(query.messageOffset ?? Math.max(0, totalMessages - limit), totalMessages);
  const [page, { runs }, checkpoints, open, tree, records, treeUsage] = await Promise.all([
    stateStore.getMessages(sessionId, { offset, limit }),
    stateStore.listRuns(sessionId),
    stateStore.listCheckpoints(sessionId),
    openCallsOfTree(context, state),
    sessionTree(context, sessionId),
    usageStore === undefined ? Promise.resolve<UsageRecord[] | null>(null) : usageStore.listRecords(sessionId),
    usageStore === undefined || !isRoot ? Promise.resolve(null) : usageStore.getTreeUsage(sessionId),
  ]);
  const sortedRuns = [...runs].sort((left, right) => left.turn - right.turn);
  const checkpointIds = new Set(checkpoints.map((checkpoint) => checkpoint.id));
  const awaiting = new Set(open.map((call) => call.toolCallId));
  const sessionState = consoleSessionState(state, sortedRuns.at(-1) ?? null, open, streamRootOf(root));
  const session: ConsoleSessionView = {
    ...sessionState,
    ...(state.output === undefined || state.output === null ? {} : { output: consoleValue(state.output) }),
    customState: consoleValue(state.customState),
    tags: state.tags ?? [],
  };
  const usage = sessionUsage(records);
  return {
    session,
    runs: runTimeline(sortedRuns, records),
    runsTotal: sortedRuns.length,
    history: { steps: historySteps(page.messages, checkpointIds, awaiting), totalMessages, offset, limit },
    checkpoints: checkpointTimeline(checkpoints),
    checkpointsTotal: checkpoints.length,
    pendingCalls: open.map((call) => ({
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      kind: call.kind,
      input: consoleValue(call.input),
      createdAt: call.createdAt,
      ...(call.deadlineAt === undefined ? {} : { deadlineAt: call.deadlineAt }),
      ownerSessionId: call.ownerSessionId,
      agentType: call.agentType,
      runId: call.runId,
    })),
    tree,
    usage: usage === null ? null : { session: usage, tree: treeUsage },
  };
}
