import {
  openCallsOfDescendants,
  HelixError,
  PostgresStateStore,
  PostgresStreamManager,
  SessionNotFoundError,
  isParkedRunStatus,
  type ResumeOptions,
  type SessionListPage,
  type SessionListQuery,
  type SessionState,
  type SubmitToolResult,
  type SubmitToolResultResponse,
} from '../../index.js';
import { CliUnsupportedError } from '../cli-errors.js';
import type { OperatorBackend, PendingCallView, PruneOutcome, RunStarted, SessionDetail } from './operator-backend.js';
import { OperatorRuntime } from './operator-runtime.js';
import { byCreation, messageViewOf, openCallsOf, pendingViewOf, runViewOf, sessionViewOf } from './store-views.js';

/**
 * Options of `DirectBackend`.
 *
 * @example
 * const options: DirectBackendOptions = { databaseUrl: process.env.DATABASE_URL!, systemDatabaseUrl: process.env.DATABASE_URL!, retryBudgetMs: 10_000 };
 */
export interface DirectBackendOptions {
  databaseUrl: string;
  systemDatabaseUrl: string;
  schema?: string;
  /** How long store calls wait out transient Postgres errors (an unreachable database fails after it). */
  retryBudgetMs: number;
  log?: (line: string) => void;
}

const RUN_AGENT_REMEDY = 'it runs the agent, and only the application has its definitions: pass --server URL (the AgentServer runs it).';

/**
 * Direct mode (`DATABASE_URL`): reads go to the state store; interrupt, abort, submit and prune go through the
 * executor's public API with DBOS launched by `OperatorRuntime` (a CLI-only executor id, no queues), only when such a
 * command runs. `resume` and `retry` run the agent, so they are refused here (`CLI_UNSUPPORTED_IN_MODE`).
 *
 * @example
 * const backend = new DirectBackend({ databaseUrl, systemDatabaseUrl: databaseUrl, retryBudgetMs: 10_000 });
 * const page = await backend.listSessions({ awaitingHuman: true });
 * await backend.close();
 */
export class DirectBackend implements OperatorBackend {
  readonly mode = 'direct';
  private readonly stateStore: PostgresStateStore;
  private readonly streamManager: PostgresStreamManager;
  private runtime: Promise<OperatorRuntime> | undefined;

  constructor(private readonly options: DirectBackendOptions) {
    const retry = { budgetMs: options.retryBudgetMs };
    const schema = options.schema === undefined ? {} : { schema: options.schema };
    this.stateStore = new PostgresStateStore({ connectionString: options.databaseUrl }, { ...schema, retry });
    this.streamManager = new PostgresStreamManager({ connectionString: options.databaseUrl }, { ...schema, retry });
  }

  async listSessions(query: SessionListQuery): Promise<SessionListPage> {
    return this.stateStore.listSessions(query);
  }

  async showSession(sessionId: string, options: { messages: number }): Promise<SessionDetail> {
    const state = await this.session(sessionId);
    const [{ runs }, subSessions] = await Promise.all([this.stateStore.listRuns(sessionId), this.stateStore.getSubSessionRefs(sessionId)]);
    const ordered = [...runs].sort((left, right) => left.turn - right.turn);
    const current = ordered.at(-1);
    const detail: SessionDetail = {
      session: sessionViewOf(state),
      currentRun: current === undefined ? null : runViewOf(current),
      pendingCalls: await this.treeCalls(state),
      runs: ordered.map(runViewOf),
      subSessions,
    };
    if (options.messages > 0) {
      const total = await this.stateStore.getMessageCount(sessionId);
      const { messages } = await this.stateStore.getMessages(sessionId, { offset: Math.max(0, total - options.messages), limit: options.messages });
      detail.messages = messages.map(messageViewOf);
    }
    return detail;
  }

  async pendingCalls(sessionId: string | undefined, limit: number): Promise<PendingCallView[]> {
    if (sessionId !== undefined) return this.treeCalls(await this.session(sessionId));
    // Sub-agent sessions too: a child's wait is its own, not its root's; the answer goes to the root.
    const { sessions } = await this.stateStore.listSessions({ awaitingHuman: true, rootsOnly: false, limit });
    const states = await Promise.all(sessions.map((row) => this.stateStore.loadState(row.sessionId)));
    return states.flatMap((state) => (state === null ? [] : openCallsOf(state).map((call) => pendingViewOf(state.rootSessionId ?? state.sessionId, call))));
  }

  async submit(submission: SubmitToolResult): Promise<SubmitToolResultResponse> {
    const { executor } = await this.launched();
    return executor.submitToolResult(submission);
  }

  async interrupt(sessionId: string, reason?: string): Promise<void> {
    const state = await this.session(sessionId);
    const run = await this.stateStore.getCurrentRun(sessionId);
    if (run?.status !== 'running') throw noActiveRun();
    const runtime = await this.launched();
    const handle = await runtime.executor.getHandle(runtime.handleAgent(state.agentType), sessionId);
    if (handle === null) throw noActiveRun();
    await handle.interrupt(reason);
  }

  async abort(sessionId: string, reason?: string): Promise<void> {
    const state = await this.session(sessionId);
    const run = await this.stateStore.getCurrentRun(sessionId);
    if (run?.status !== 'running' && !isParkedRunStatus(run?.status)) throw noActiveRun();
    const runtime = await this.launched();
    const handle = await runtime.executor.getHandle(runtime.handleAgent(state.agentType), sessionId);
    if (handle === null) throw noActiveRun();
    await handle.abort(reason);
  }

  async resume(_sessionId: string, _options: ResumeOptions): Promise<RunStarted> {
    throw new CliUnsupportedError('resume', 'direct', RUN_AGENT_REMEDY);
  }

  async retry(_sessionId: string): Promise<RunStarted> {
    throw new CliUnsupportedError('retry', 'direct', RUN_AGENT_REMEDY);
  }

  async pruneCandidates(olderThanMs: number): Promise<string[]> {
    const finished = await this.stateStore.listFinishedSessions(Date.now() - olderThanMs, { limit: 1_000 });
    return finished.map((session) => session.sessionId);
  }

  async pruneBatch(olderThanMs: number, limit: number): Promise<PruneOutcome> {
    const { executor } = await this.launched();
    return executor.pruneFinishedSessions({ olderThanMs, limit });
  }

  async close(): Promise<void> {
    const runtime = await this.runtime?.catch(() => undefined);
    try {
      await runtime?.shutdown();
    } finally {
      await Promise.allSettled([this.stateStore.close(), this.streamManager.close()]);
    }
  }

  /** A session's open calls and, for a root, its sub-agents' (through the root's call ownership), addressed to the root. */
  private async treeCalls(state: SessionState): Promise<PendingCallView[]> {
    const answerTo = state.rootSessionId ?? state.sessionId;
    const below = await openCallsOfDescendants(this.stateStore, state);
    return byCreation([...openCallsOf(state), ...below]).map((call) => pendingViewOf(answerTo, call));
  }

  private async session(sessionId: string): Promise<SessionState> {
    const state = await this.stateStore.loadState(sessionId);
    if (state === null) throw new SessionNotFoundError(sessionId, { hint: 'check the id with `helix-agents sessions list`.' });
    return state;
  }

  private launched(): Promise<OperatorRuntime> {
    this.runtime ??= OperatorRuntime.launch({
      stateStore: this.stateStore,
      streamManager: this.streamManager,
      systemDatabaseUrl: this.options.systemDatabaseUrl,
      ...(this.options.log === undefined ? {} : { log: this.options.log }),
    });
    return this.runtime;
  }
}

function noActiveRun(): HelixError {
  return new HelixError('NO_ACTIVE_RUN', 'The session has no running (or, for abort, parked) run.');
}
