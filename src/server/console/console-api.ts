/**
 * The console's JSON API: the contract between `AgentServer` (with `console` enabled) and the console's web UI or any
 * other client. Every route lives under `{consolePath}/api` (default `/console/api`), behind the server's
 * authentication; a principal sees only its own sessions (another principal's session is the same 404 as a missing
 * one). Errors are `{ error: { code, message, issues? } }` (see `AgentServerErrorCode`) and never echo payloads.
 *
 * - `GET  /api/agents` → {@link ConsoleAgentsResponse}
 * - `GET  /api/sessions?agent=&status=&awaitingHuman=&updatedSince=&limit=&cursor=` → {@link ConsoleSessionListResponse}
 *   (501 `SESSION_LISTING_UNSUPPORTED` when the state store has no `listSessions`)
 * - `GET  /api/sessions/:id?messageOffset=&messageLimit=` → {@link ConsoleSessionDetailResponse}
 * - `POST /api/sessions/:id/{approve|deny|submit|interrupt|resume|abort|retry|branch}` → {@link ConsoleActionResponse}
 *
 * - `GET  /api/sessions/:id/stream` → the session's stream as server-sent events, as `GET /sse` sends them (`id:` =
 *   sequence, `data:` = the chunk; resumable with `Last-Event-ID`), from its current run's start to that run's end:
 *   any session of the principal's tree, a companion's own stream included.
 */
import type { ToolKind } from '../../agent/index.js';
import type { DBOSAgentMode, SessionStatus } from '../../types/session.js';
import type { ConsoleSessionState } from './console-session-api.js';

export type {
  ConsoleCheckpointView,
  ConsoleHistoryView,
  ConsolePendingCallView,
  ConsoleRunSummary,
  ConsoleRunView,
  ConsoleSessionDetailResponse,
  ConsoleSessionState,
  ConsoleSessionView,
  ConsoleStepView,
  ConsoleToolCallView,
  ConsoleTreeNode,
  ConsoleTreeView,
  ConsoleUsageView,
  ConsoleValue,
} from './console-session-api.js';

/**
 * The bounds of every console answer: no value, list or tree is returned unbounded.
 *
 * @example
 * if (value.truncated) showNote(`first ${CONSOLE_LIMITS.valueChars} characters`);
 */
export const CONSOLE_LIMITS = Object.freeze({
  /** Characters of one shown value (tool arguments and results, texts, state, output). */
  valueChars: 2_000,
  /** Messages of one history page, by default and at most. */
  defaultMessages: 200,
  maxMessages: 500,
  /** The latest runs and checkpoints shown. */
  runs: 100,
  checkpoints: 100,
  /** Sub-agent tree: levels below the session and nodes in all. */
  treeDepth: 5,
  treeNodes: 100,
  /** Open human calls shown (the session's and, for a root, its descendants'). */
  pendingCalls: 100,
  /** Changed top-level state keys named per checkpoint. */
  changedKeys: 50,
  /** Sessions of one list page, by default and at most. */
  defaultPage: 50,
  maxPage: 200,
});

/**
 * One tool an agent offers the model. `approval`: an approval-gated server tool asks `always` or by a predicate
 * (`conditional`); `agentType` names the agent a sub-agent or remote tool delegates to.
 *
 * @example
 * const tool: ConsoleToolView = { name: 'pay', kind: 'server', description: 'Pay an amount', approval: 'always' };
 */
export interface ConsoleToolView {
  name: string;
  kind: ToolKind;
  description: string;
  approval: 'always' | 'conditional' | 'never';
  agentType?: string;
}

/**
 * A registered agent and its effective tools (its own, `__finish__`, companion and skill tools).
 *
 * @example
 * const agent: ConsoleAgentView = { name: 'assistant', maxSteps: 5, tools: [], hasApprovalTools: false, hasClientTools: false, hasSubAgents: false, hasOutputSchema: false, chat: true };
 */
export interface ConsoleAgentView {
  name: string;
  description?: string;
  maxSteps: number;
  tools: ConsoleToolView[];
  hasApprovalTools: boolean;
  hasClientTools: boolean;
  /** Delegates to sub-agents, companions or remote agents. */
  hasSubAgents: boolean;
  hasOutputSchema: boolean;
  /** The agent of the server's chat routes. */
  chat: boolean;
}

/**
 * `GET {path}/api/agents`.
 *
 * @example
 * const { agents }: ConsoleAgentsResponse = await (await fetch('/console/api/agents', { headers })).json();
 */
export interface ConsoleAgentsResponse {
  agents: ConsoleAgentView[];
}

/**
 * One top-level session of the principal in a list.
 *
 * @example
 * const row: ConsoleSessionRow = { sessionId: 's1', agentType: 'assistant', status: 'active', stepCount: 2, createdAt: 1, updatedAt: 2, awaitingHuman: true };
 */
export interface ConsoleSessionRow {
  sessionId: string;
  agentType: string;
  status: SessionStatus;
  mode?: DBOSAgentMode;
  failureReason?: string;
  stepCount: number;
  createdAt: number;
  updatedAt: number;
  /** The session itself holds an unanswered client tool call or approval (a sub-agent's wait shows on the session page). */
  awaitingHuman: boolean;
}

/**
 * Counts over all the principal's top-level sessions, whatever the list's filters.
 *
 * @example
 * const counts: ConsoleSessionCounts = { awaitingHuman: 1, byStatus: { active: 2, completed: 5, failed: 0, interrupted: 0, paused: 0 } };
 */
export interface ConsoleSessionCounts {
  awaitingHuman: number;
  byStatus: Record<SessionStatus, number>;
}

/**
 * `GET {path}/api/sessions`: a page of the principal's top-level sessions, most recently written first. Pass
 * `nextCursor` as `cursor` for the next page (`null` on the last); `total` counts every match of the filters.
 *
 * @example
 * const page: ConsoleSessionListResponse = await (await fetch('/console/api/sessions?status=active&limit=20', { headers })).json();
 */
export interface ConsoleSessionListResponse {
  sessions: ConsoleSessionRow[];
  nextCursor: string | null;
  total: number;
  counts: ConsoleSessionCounts;
}

/**
 * The actions of `POST {path}/api/sessions/:id/{action}`.
 *
 * @example
 * const action: ConsoleAction = 'approve';
 */
export type ConsoleAction = 'approve' | 'deny' | 'submit' | 'interrupt' | 'resume' | 'abort' | 'retry' | 'branch';

/**
 * Where a started run's chunks are: `GET /sse?sessionId=${sessionId}&fromSequence=${startSequence}`.
 *
 * @example
 * const events = new URL(`/sse?sessionId=${run.sessionId}&fromSequence=${run.startSequence}`, base);
 */
export interface ConsoleStartedRun {
  sessionId: string;
  runId: string;
  streamId: string;
  startSequence: number;
}

/**
 * What every action answers: the session's state right after it (for `branch`, the new session's), the executor's
 * answer to a submission (`approve`, `deny`, `submit`), and the run the action started, if any (`resume`, `retry`,
 * `branch`, and a submission that resumed a parked run).
 *
 * @example
 * const answer: ConsoleActionResponse = await (await fetch(`/console/api/sessions/${id}/retry`, { method: 'POST', headers })).json();
 */
export interface ConsoleActionResponse {
  action: ConsoleAction;
  /** The session acted on (for `branch`, the source session). */
  sessionId: string;
  session: ConsoleSessionState;
  submission?: { status: 'accepted' | 'already_completed' | 'unknown_tool_call'; next?: 'continues' | 'needs_resume' | 'resumed' };
  startedRun?: ConsoleStartedRun;
}
