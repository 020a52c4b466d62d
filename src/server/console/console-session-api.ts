/**
 * The console API's session types (the session page and the state actions answer); `console-api.ts` re-exports them
 * with the rest of the contract.
 */
import type { CompletionReason, DBOSAgentMode, RunStatus, SessionStatus } from '../../types/session.js';
import type { SubSessionRef } from '../../types/sub-session-ref.js';
import type { UsageSummary } from '../../types/usage.js';

/**
 * A value as the console shows it: a string as itself (`kind: 'text'`), anything else as JSON text (`kind: 'json'`),
 * cut to `CONSOLE_LIMITS.valueChars` characters. `length` is the full text's length; `truncated` says it was cut.
 *
 * @example
 * const shown: ConsoleValue = { kind: 'json', text: '{"city":"Oslo"}', truncated: false, length: 15 };
 */
export interface ConsoleValue {
  kind: 'text' | 'json';
  text: string;
  truncated: boolean;
  length: number;
}

/**
 * A run as a session's current run.
 *
 * @example
 * const run: ConsoleRunSummary = { runId: 'run-1', turn: 1, status: 'running', startedAt: 1 };
 */
export interface ConsoleRunSummary {
  runId: string;
  turn: number;
  status: RunStatus;
  completionReason?: CompletionReason;
  startedAt: number;
  endedAt?: number;
}

/**
 * The session as actions answer it: status, failure, current run and whether humans are awaited. For a root,
 * `openCallCount` counts its descendants' open calls too. `canResume`/`canRetry` say whether those actions apply.
 *
 * @example
 * if (state.canResume) showResumeButton();
 */
export interface ConsoleSessionState {
  sessionId: string;
  agentType: string;
  status: SessionStatus;
  mode: DBOSAgentMode;
  stepCount: number;
  createdAt: number;
  updatedAt: number;
  parentSessionId?: string;
  rootSessionId?: string;
  failure?: { reason?: string; error?: string };
  interrupt?: { reason?: string; interruptedAt: number };
  currentRun: ConsoleRunSummary | null;
  awaitingHuman: boolean;
  openCallCount: number;
  canResume: boolean;
  canRetry: boolean;
  /** The stream the session writes to (a sub-agent's is its root's; a companion has its own). */
  streamId: string;
  /**
   * Follow the session live with `GET /sse?sessionId=${liveSessionId}` (resumable with `Last-Event-ID`): the session
   * itself for a root, the root for a sub-agent writing into the root's stream; null for a companion (its own stream,
   * which `/sse` serves only to the principal of a session's own `userId`). The console's own
   * `GET {path}/api/sessions/{id}/stream` follows any session, a companion included.
   */
  liveSessionId: string | null;
}

/**
 * One run of the timeline. `previousRunId`: the run this one continues (a resume or retry; absent for a new turn);
 * `nextRunId`: the session's following run (turn + 1); `durationMs` is null while it runs; `usage` is null without a
 * usage store.
 *
 * @example
 * const run: ConsoleRunView = { runId: 'run-2', turn: 2, status: 'completed', startedAt: 1, endedAt: 9, durationMs: 8, previousRunId: 'run-1', stepCount: 1, usage: null };
 */
export interface ConsoleRunView extends ConsoleRunSummary {
  error?: string;
  durationMs: number | null;
  previousRunId?: string;
  nextRunId?: string;
  stepCount: number;
  usage: UsageSummary | null;
}

/**
 * The session on its page: its state plus output, custom state and tags.
 *
 * @example
 * renderJson(view.customState.text, view.customState.truncated);
 */
export interface ConsoleSessionView extends ConsoleSessionState {
  output?: ConsoleValue;
  customState: ConsoleValue;
  tags: string[];
}

/**
 * A tool call of a step and its result (matched by call id anywhere in the shown history). `status`:
 * `awaiting_human` for an open client call or approval, `no_result` when nothing answered it (yet).
 *
 * @example
 * const call: ConsoleToolCallView = { toolCallId: 'c1', toolName: 'pay', arguments: value, status: 'awaiting_human' };
 */
export interface ConsoleToolCallView {
  toolCallId: string;
  toolName: string;
  /** Absent when the call itself is outside the shown history (its result is shown). */
  arguments?: ConsoleValue;
  result?: ConsoleValue;
  status: 'completed' | 'failed' | 'awaiting_human' | 'no_result';
}

/**
 * The messages of one agent step, by their ids (`${runId}:${step}:${index}`; step 0 holds the turn's user message).
 * Messages with other ids form steps with `runId` and `step` null. `checkpointId` names the step's checkpoint.
 *
 * @example
 * for (const step of history.steps) render(step.text?.text, step.toolCalls);
 */
export interface ConsoleStepView {
  runId: string | null;
  step: number | null;
  createdAt?: number;
  userText?: ConsoleValue;
  text?: ConsoleValue;
  thinking?: ConsoleValue;
  toolCalls: ConsoleToolCallView[];
  checkpointId?: string;
  /** Message sequences (1-based) the step spans. */
  firstSequence: number;
  lastSequence: number;
}

/**
 * One page of the conversation: messages `offset` to `offset + limit - 1` (0-based) of `totalMessages`, grouped by step.
 * The page before starts at `max(0, offset - limit)`.
 *
 * @example
 * const older = `/console/api/sessions/${id}?messageOffset=${Math.max(0, history.offset - history.limit)}`;
 */
export interface ConsoleHistoryView {
  steps: ConsoleStepView[];
  totalMessages: number;
  offset: number;
  limit: number;
}

/**
 * A checkpoint (a committed step boundary; `branch` and `resume` with `from_checkpoint` take its id) and the
 * top-level custom-state keys whose value differs from the checkpoint before it.
 *
 * @example
 * const checkpoint: ConsoleCheckpointView = { id: 'run-1:2', runId: 'run-1', stepCount: 2, messageCount: 5, createdAt: 1, changedKeys: ['notes'] };
 */
export interface ConsoleCheckpointView {
  id: string;
  runId: string;
  stepCount: number;
  messageCount: number;
  createdAt: number;
  changedKeys: string[];
}

/**
 * An open human call: answer `approval` calls with `approve`/`deny`, `client` calls with `submit`. On a root's page
 * the calls of its descendants are listed too (`ownerSessionId` is the sub-agent's session).
 *
 * @example
 * await post(`/console/api/sessions/${id}/approve`, { toolCallId: call.toolCallId });
 */
export interface ConsolePendingCallView {
  toolCallId: string;
  toolName: string;
  kind: 'client' | 'approval';
  input: ConsoleValue;
  createdAt: number;
  deadlineAt?: number;
  ownerSessionId: string;
  agentType: string;
  runId: string;
}

/**
 * A sub-agent or companion below a session. `refStatus` is the parent's record of it, `status` the child session's
 * own (null for a remote sub-agent, which has no local session).
 *
 * @example
 * const node: ConsoleTreeNode = { sessionId: 's1-sub-c1', agentType: 'helper', mode: 'ephemeral', parentToolCallId: 'c1', refStatus: 'completed', status: 'completed', remote: false, startedAt: 1, children: [] };
 */
export interface ConsoleTreeNode {
  sessionId: string;
  agentType: string;
  mode: 'ephemeral' | 'persistent';
  name?: string;
  parentToolCallId: string;
  refStatus: SubSessionRef['status'];
  status: SessionStatus | null;
  remote: boolean;
  startedAt: number;
  completedAt?: number;
  children: ConsoleTreeNode[];
}

/**
 * The tree below a session, at most `CONSOLE_LIMITS.treeDepth` levels and `treeNodes` nodes (`truncated` when cut).
 *
 * @example
 * const count = tree.nodeCount;
 */
export interface ConsoleTreeView {
  children: ConsoleTreeNode[];
  nodeCount: number;
  truncated: boolean;
}

/**
 * Usage of the session and, for a root, of its whole tree (sub-agents included).
 *
 * @example
 * console.log(usage.tree?.totalTokens ?? usage.session.totalTokens);
 */
export interface ConsoleUsageView {
  session: UsageSummary;
  tree: UsageSummary | null;
}

/**
 * `GET {path}/api/sessions/:id`: the session page. `runs` and `checkpoints` are the latest ones (`runsTotal`,
 * `checkpointsTotal` count all); `usage` is null when the server has no `usageStore`.
 *
 * @example
 * const page: ConsoleSessionDetailResponse = await (await fetch(`/console/api/sessions/${id}`, { headers })).json();
 */
export interface ConsoleSessionDetailResponse {
  session: ConsoleSessionView;
  runs: ConsoleRunView[];
  runsTotal: number;
  history: ConsoleHistoryView;
  checkpoints: ConsoleCheckpointView[];
  checkpointsTotal: number;
  pendingCalls: ConsolePendingCallView[];
  tree: ConsoleTreeView;
  usage: ConsoleUsageView | null;
}
