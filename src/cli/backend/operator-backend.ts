import type { ResumeOptions, SessionListPage, SessionListQuery, SubmitToolResult, SubmitToolResultResponse, SubSessionRef } from '../../index.js';

/**
 * A session as `sessions show` prints it (server mode fills the fields `/status` answers; direct mode all).
 *
 * @example
 * const view: SessionView = { sessionId: 's1', agentType: 'assistant', status: 'active', stepCount: 2, awaitingHuman: true };
 */
export interface SessionView {
  sessionId: string;
  agentType: string;
  /** A `SessionStatus` (server mode passes on what the server answers). */
  status: string;
  stepCount: number;
  awaitingHuman: boolean;
  mode?: string;
  userId?: string;
  parentSessionId?: string;
  rootSessionId?: string;
  failureReason?: string;
  error?: string;
  output?: unknown;
  createdAt?: number;
  updatedAt?: number;
}

/**
 * One run (turn) of a session.
 *
 * @example
 * const run: RunView = { runId: 'r1', turn: 1, status: 'completed', stepCount: 2 };
 */
export interface RunView {
  runId: string;
  turn?: number;
  /** A `RunStatus`. */
  status: string;
  stepCount?: number;
  completionReason?: string;
  error?: string;
  startedAt?: number;
  endedAt?: number;
}

/**
 * A client tool call or approval no one has answered yet.
 *
 * @example
 * const call: PendingCallView = { sessionId: 's1', toolCallId: 'c1', toolName: 'pay', kind: 'approval', input: { amount: 5 }, approvalId: 'c1' };
 */
export interface PendingCallView {
  /** The session the answer is addressed to (the root of the tree). */
  sessionId: string;
  toolCallId: string;
  toolName: string;
  /** `client` or `approval`. */
  kind: string;
  input: unknown;
  approvalId?: string;
  /** The session whose run waits for it: a sub-agent's, or the root's own (direct mode; server mode from GET /status). */
  ownerSessionId?: string;
  createdAt?: number;
  deadlineAt?: number;
}

/**
 * One stored message, as `sessions show --messages N` lists it.
 *
 * @example
 * const message: MessageView = { role: 'user', content: 'Hi' };
 */
export interface MessageView {
  role: string;
  content: unknown;
  toolCalls?: Array<{ id: string; name: string; arguments: unknown }>;
  toolName?: string;
  createdAt?: number;
}

/**
 * What `sessions show` reports. `runs`, `subSessions` and `messages` are direct mode only (GET /status has none).
 *
 * @example
 * const detail: SessionDetail = { session, currentRun: null, pendingCalls: [] };
 */
export interface SessionDetail {
  session: SessionView;
  currentRun: RunView | null;
  pendingCalls: PendingCallView[];
  runs?: RunView[];
  subSessions?: SubSessionRef[];
  messages?: MessageView[];
}

/**
 * A run the server started (resume, retry).
 *
 * @example
 * const started: RunStarted = { sessionId: 's1', runId: 'r2', streamId: 's1', startSequence: 14 };
 */
export interface RunStarted {
  sessionId: string;
  runId: string;
  streamId?: string;
  startSequence?: number;
}

/**
 * What one retention pass over the whole backlog removed.
 *
 * @example
 * const outcome: PruneOutcome = { sessions: 3, chunksDeleted: 120, workflowsDeleted: 4 };
 */
export interface PruneOutcome {
  sessions: number;
  chunksDeleted: number;
  workflowsDeleted: number;
}

/**
 * The operations behind the commands, in one of two modes: `direct` (the database, DBOS under a CLI-only executor
 * id) or `server` (an AgentServer's routes, as the token's principal). A mode that cannot serve an operation throws
 * `CliUnsupportedError` (`CLI_UNSUPPORTED_IN_MODE`) naming the mode that can.
 *
 * @example
 * const page = await backend.listSessions({ status: ['active'], limit: 20 });
 */
export interface OperatorBackend {
  readonly mode: 'direct' | 'server';
  listSessions(query: SessionListQuery): Promise<SessionListPage>;
  showSession(sessionId: string, options: { messages: number }): Promise<SessionDetail>;
  /** Open calls of one session, or (direct mode) of every session waiting for a human, up to `limit` sessions. */
  pendingCalls(sessionId: string | undefined, limit: number): Promise<PendingCallView[]>;
  submit(submission: SubmitToolResult): Promise<SubmitToolResultResponse>;
  interrupt(sessionId: string, reason?: string): Promise<void>;
  abort(sessionId: string, reason?: string): Promise<void>;
  resume(sessionId: string, options: ResumeOptions): Promise<RunStarted>;
  retry(sessionId: string): Promise<RunStarted>;
  /** Finished root sessions a prune would take now (at most 1,000). */
  pruneCandidates(olderThanMs: number): Promise<string[]>;
  /** One retention batch (`pruneFinishedSessions`). */
  pruneBatch(olderThanMs: number, limit: number): Promise<PruneOutcome>;
  /** Release connections (and shut DBOS down when this process launched it). */
  close(): Promise<void>;
}
