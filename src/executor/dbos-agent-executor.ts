import { newRunId } from './run-id.js';
import type { z } from 'zod';
import type { AgentConfig, AgentInput, AnyAgentConfig } from '../agent/index.js';
import { DBOSModeMismatchError, InvalidArgumentError, SessionIdRequiredError, WorkspaceUnsupportedError } from '../errors/index.js';
import { HookManager, noopLogger } from '../hooks/index.js';
import { initializeAgentState } from '../orchestration/index.js';
import { assertValidSessionId } from '../orchestration/session-id.js';
import { decideSessionOperation, sessionViewOf } from '../orchestration/session-transitions.js';
import { assertSessionAgent, assertSessionId, refusalError } from './session-refusals.js';
import { registerAgent } from '../steps/runtime-registry.js';
import { registerDBOSAgentWorkflows } from '../workflows/agent.workflow.js';
import { repairLostStart } from './lost-start.js';
import { pruneFinishedSessions, type PruneOptions, type PruneResult } from './retention.js';
import { bindExecutorDependencies } from './executor-dependencies.js';
import { isPersistentState, PersistentSessions } from './persistent-sessions.js';
import { abortSession, interruptSession } from './run-control.js';
import { resumeSession } from './resume-session.js';
import { RunLauncher } from './run-launcher.js';
import { runTrace } from './run-trace.js';
import { retrySession } from './retry-session.js';
import { createAndStart } from './session-creation.js';
import { executeReads } from './execute-reads.js';
import { closeExecutor, type CloseOptions } from './executor-close.js';
import { flushHeldSpans } from '../telemetry/agent-telemetry.js';
import { reopenWarmWaits } from '../workflows/warm-waits.js';
import { endedMeanwhile, finishedMeanwhile, repairStuckRun } from './stuck-run.js';
import { submitAndFollowUp } from './submit-follow-up.js';
import { dbosCallContext, observingRun, startingRun } from './replay-safe.js';
import { resumeParkedCompanions } from './companion-resume.js';
import type { SubmitToolResult, SubmitToolResultResponse } from './submit-tool-result.js';
import type { AgentExecutionHandle, DBOSAgentExecutorConfig, ExecuteOptions, ResumeOptions, RetryOptions } from './types.js';
import { journalFromEnvironment, useJournal } from '../journal/journal.js';

type Agent<TState, TOutput> = AgentConfig<z.ZodType<TState>, z.ZodType<TOutput>>;

/**
 * Runs agents as DBOS durable workflows on Postgres. The constructor binds every step's dependencies and registers
 * the workflows; construct it (and register agents a recovering process may meet) before `DBOS.launch()`.
 *
 * @example
 * registerDBOSAgentWorkflows();
 * const executor = new DBOSAgentExecutor({ stateStore, streamManager, llmAdapter: new VercelAIAdapter({ model }) });
 * await DBOS.launch();
 * const handle = await executor.execute(agent, 'Plan my trip', { sessionId: 'trip-1' });
 * console.log((await handle.result()).output);
 */
export class DBOSAgentExecutor {
  private readonly config: DBOSAgentExecutorConfig;
  private readonly launcher: RunLauncher;
  private readonly persistent: PersistentSessions;
  private readonly logger;

  constructor(config: DBOSAgentExecutorConfig) {
    this.config = config;
    this.logger = config.logger ?? noopLogger;
    const hookManager = config.hookManager ?? new HookManager({ logger: this.logger });
    registerDBOSAgentWorkflows();
    useJournal(config.journal ?? journalFromEnvironment());
    reopenWarmWaits(); // after a close(): this executor's runs wait warm again
    bindExecutorDependencies(config, hookManager, this.logger);
    this.launcher = new RunLauncher(config, hookManager, (agent, sessionId) => ({
      send: (input) => this.execute(agent, input, { sessionId }),
      resume: (options) => this.resume(agent, sessionId, options),
      retry: (options) => this.retry(agent, sessionId, options),
      interrupt: (reason) => interruptSession(config.stateStore, sessionId, reason),
      abort: async (reason) => void (await abortSession(config.stateStore, config.streamManager, sessionId, reason)),
    }));
    this.persistent = new PersistentSessions(config, hookManager, (agent, sessionId) => ({
      send: (input) => this.execute(agent, input, { sessionId, mode: 'persistent' }),
      resume: (options) => this.resume(agent, sessionId, options),
      retry: () => this.retry(agent, sessionId),
      interrupt: (reason) => interruptSession(config.stateStore, sessionId, reason),
      abort: (reason) => this.persistent.abort(sessionId, reason),
    }));
  }

  /**
   * Start a run in a session: a new session, a branch of another session's checkpoint, or a new turn of a
   * `completed` one (it sees the whole conversation, with a fresh `maxSteps` budget). While the session
   * runs, returns a handle to that run instead of starting another.
   *
   * With `mode: 'persistent'` the first call creates the session and its receive-loop workflow
   * (`${agentType}__${sessionId}__persistent`); every call sends its message into that workflow's inbox and
   * returns a handle for the turn the message starts (queued messages run in arrival order, each once). A
   * parked or ended session is restarted with its whole history. See `PersistentSessions`.
   *
   * @throws SessionIdRequiredError `SESSION_ID_REQUIRED` without `options.sessionId`.
   * @throws WorkspaceUnsupportedError `WORKSPACE_UNSUPPORTED` when the agent declares a workspace.
   * @throws DBOSModeMismatchError `DBOS_MODE_MISMATCH` when `options.mode` differs from the session's.
   * @throws SessionNotContinuableError `SESSION_NOT_CONTINUABLE` for a failed/interrupted/paused session.
   * @throws AgentAlreadyRunningError `AGENT_ALREADY_RUNNING` for a session parked waiting for client results
   *   (answer with submitToolResult(), then resume(), optionally `{ mode: 'with_message' }`).
   * @throws DBOSPersistentSessionTerminatedError `DBOS_PERSISTENT_SESSION_TERMINATED` (persistent mode): restarts kept losing races.
   * @throws InvalidArgumentError `INVALID_ARGUMENT` for input that is not a string or `{ message, state? }`, or a
   *   malformed `traceparent` (refused before anything is written).
   * @example
   * const handle = await executor.execute(agent, { message: 'Hi', state: { user: 'ada' } }, { sessionId: 's1' });
   */
  async execute<TState, TOutput>(agent: Agent<TState, TOutput>, input: AgentInput<TState>, options: ExecuteOptions): Promise<AgentExecutionHandle<TOutput>> {
    runTrace(options?.traceparent);
    return startingRun(this.launcher, agent as AnyAgentConfig, 'execute', { ...options, persistent: options?.mode === 'persistent' }, () =>
      this.executeNow(agent, input, options),
    );
  }

  private async executeNow<TState, TOutput>(
    agent: Agent<TState, TOutput>,
    input: AgentInput<TState>,
    options: ExecuteOptions,
  ): Promise<AgentExecutionHandle<TOutput>> {
    const sessionId = options?.sessionId;
    if (sessionId === undefined || sessionId === null) throw new SessionIdRequiredError();
    assertSessionId(sessionId);
    if (options.branch !== undefined) assertValidSessionId(options.branch.fromSessionId, 'branch.fromSessionId');
    if (agent.workspace !== undefined) throw new WorkspaceUnsupportedError(agent.name);
    const any = agent as AnyAgentConfig;
    const mode = options.mode ?? 'standard';
    if (mode !== 'standard' && mode !== 'persistent') throw new InvalidArgumentError("options.mode must be 'standard' or 'persistent'.", { mode });
    registerAgent(any);
    if (mode === 'persistent') return this.persistent.execute(any, input, options);
    const { stateStore } = this.config;
    const runId = newRunId();
    const message = typeof input === 'string' ? input : (input as { message?: unknown })?.message;
    const sameTurn = typeof message === 'string' ? message : undefined;

    for (;;) {
      const reads = executeReads(this.config, sessionId, options.branch !== undefined);
      const existing = await reads.session;
      assertSessionAgent(existing, agent.name);
      if (existing?.mode !== undefined && existing.mode !== mode) throw new DBOSModeMismatchError(sessionId, existing.mode, mode);
      const { run, stream } = await reads.after(existing);
      // A stuck run is repaired; a finishing one (its stream ended, its status not yet written) is waited for.
      if (
        run?.status === 'running' &&
        ((await repairStuckRun(stateStore, this.config.streamManager, sessionId)) || (await finishedMeanwhile(stateStore, this.config.streamManager, existing)))
      )
        continue;
      const view = sessionViewOf(existing, run);
      const decision = decideSessionOperation('execute', view);
      switch (decision.action) {
        case 'create':
          return createAndStart(this.config, this.launcher, any, input, runId, options, sameTurn, reads.newStream());
        case 'attach':
          return this.launcher.handleOfRunningSession(any, sessionId, undefined, sameTurn ?? '');
        case 'await_run':
          // Session and run read apart can straddle an ending's two writes (a finish's or an abort's): decide again.
          if ((await repairLostStart(stateStore, sessionId)) || (run?.status !== 'running' && (await endedMeanwhile(stateStore, sessionId, run?.runId))))
            continue;
          // The session was taken for a new run not recorded yet: wait for that run, not the ended one.
          return this.launcher.handleOfRunningSession(any, sessionId, run?.runId, sameTurn ?? '');
        case 'start_turn': {
          if (existing === null) continue;
          const initial = initializeAgentState(any, input as AgentInput, { runId, existingState: existing.customState });
          const withState = typeof input === 'object' && input.state !== undefined;
          const turn = { userMessage: initial.message, ...(withState ? { initialState: initial.customState } : {}), ...runTrace(options.traceparent) };
          // The session taken, its stream reactivated and the run recorded: one transaction when the stores share a database.
          const planned = await this.launcher.planRun(any, sessionId, runId, turn, { previous: run, stream });
          const handle = await this.launcher.recordAndLaunch(any, planned, async (writer) => {
            const swapped = await writer.compareAndSetStatus(sessionId, ['completed'], 'active', { expectedVersion: existing.version });
            if (!swapped.ok) return undefined; // another writer changed the session: decide again
            await writer.reactivateStream(existing.streamId ?? sessionId);
            return this.launcher.recordRun(writer, planned, { sessionLocked: true });
          }, options);
          if (handle === undefined) continue;
          return handle;
        }
        default:
          throw refusalError('execute', decision.action === 'refuse' ? decision.reason : 'not_continuable', sessionId, view);
      }
    }
  }

  /**
   * Continue an interrupted session, or a session parked while waiting for client tool results or
   * approvals (submitted results are drained first). A CAS on the session makes concurrent resumes start
   * one run. The new run's onAgentResumed gets `previousRunId` = the suspended run.
   *
   * @throws SessionNotFoundError `SESSION_NOT_FOUND`; NotResumableError `NOT_RESUMABLE` when there is nothing to resume.
   * @example
   * await executor.submitToolResult({ kind: 'client-tool-result', sessionId, toolCallId, result });
   * const handle = await executor.resume(agent, sessionId);
   * Parked companions below the session whose calls are all answered are resumed on their own sessions too.
   */
  async resume<TState, TOutput>(agent: Agent<TState, TOutput>, sessionId: string, options: ResumeOptions = {}): Promise<AgentExecutionHandle<TOutput>> {
    const handle = await startingRun(this.launcher, agent as AnyAgentConfig, 'resume', { ...options, sessionId }, () =>
      this.resumeNow(agent, sessionId, options),
    );
    if (dbosCallContext() === 'outside') await resumeParkedCompanions(this.config.stateStore, this.logger, sessionId, (any, id) => this.resume(any, id));
    return handle;
  }

  private async resumeNow<TState, TOutput>(agent: Agent<TState, TOutput>, sessionId: string, options: ResumeOptions): Promise<AgentExecutionHandle<TOutput>> {
    return resumeSession({ config: this.config, launcher: this.launcher, persistent: this.persistent }, agent as AnyAgentConfig, sessionId, options);
  }

  /**
   * Re-run a failed session: a fresh workflow re-runs the loop from the message history (custom state is
   * kept; the LLM call sequence restarts at step 1).
   *
   * @throws SessionNotFoundError `SESSION_NOT_FOUND`; NotResumableError `NOT_RESUMABLE` unless the session failed.
   * @example
   * if ((await handle.result()).status === 'failed') await executor.retry(agent, handle.sessionId);
   */
  async retry<TState, TOutput>(agent: Agent<TState, TOutput>, sessionId: string, options: RetryOptions = {}): Promise<AgentExecutionHandle<TOutput>> {
    return startingRun(this.launcher, agent as AnyAgentConfig, 'retry', { ...options, sessionId }, () => this.retryNow(agent, sessionId, options));
  }

  private async retryNow<TState, TOutput>(agent: Agent<TState, TOutput>, sessionId: string, options: RetryOptions): Promise<AgentExecutionHandle<TOutput>> {
    return retrySession({ config: this.config, launcher: this.launcher, persistent: this.persistent }, agent as AnyAgentConfig, sessionId, options);
  }

  /**
   * Answer a pending client-executed tool call or approval request, exactly once. Wakes a warm run in place
   * (same runId; `next: 'continues'`); a parked run needs `resume()` after its last answer (`next: 'needs_resume'`),
   * or is resumed here with `autoResumeOnSubmit` (`next: 'resumed'`, exactly one run under concurrent submits).
   *
   * @throws InvalidArgumentError `INVALID_ARGUMENT` for an invalid session id.
   *
   * @throws InvalidSubmissionError `INVALID_SUBMISSION` for a malformed payload (nothing is changed).
   * @example
   * const { status } = await executor.submitToolResult({ kind: 'client-tool-result', sessionId, toolCallId, result: { city: 'Oslo' } });
   */
  async submitToolResult(params: SubmitToolResult): Promise<SubmitToolResultResponse> {
    const sessionId = typeof params === 'object' && params !== null ? (params as { sessionId?: unknown }).sessionId : undefined;
    if (typeof sessionId === 'string') assertSessionId(sessionId);
    const resume = this.config.autoResumeOnSubmit === true ? (agent: AnyAgentConfig, id: string) => this.resume(agent, id) : undefined;
    return submitAndFollowUp(this.config.stateStore, this.logger, params, resume);
  }

  /**
   * Reconnect to a session's latest run without starting anything. `null` when the session does not exist.
   *
   * @example
   * const handle = await executor.getHandle(agent, 'trip-1');
   * if (handle) console.log((await handle.result()).status);
   */
  async getHandle<TState, TOutput>(
    agent: Agent<TState, TOutput>,
    sessionId: string,
    options: Pick<ExecuteOptions, 'usageStore'> = {},
  ): Promise<AgentExecutionHandle<TOutput> | null> {
    assertSessionId(sessionId);
    registerAgent(agent as AnyAgentConfig);
    const { stateStore } = this.config;
    const state = await stateStore.loadState(sessionId);
    if (state !== null && isPersistentState(state)) {
      assertSessionAgent(state, agent.name);
      return this.persistent.currentHandle(agent as AnyAgentConfig, sessionId);
    }
    return observingRun(
      this.launcher,
      agent as AnyAgentConfig,
      sessionId,
      async () => {
        assertSessionAgent(await stateStore.loadState(sessionId), agent.name);
        return stateStore.getCurrentRun(sessionId);
      },
      options,
    );
  }

  /**
   * Call first when shutting down: warm persistent sessions end with `shutdown`, runs waiting warm are held for recovery
   * (see `closeExecutor`), then `DBOS.shutdown()`, then close your stores: the process exits by itself.
   * @example
   * await executor.close(); await DBOS.shutdown(); await Promise.all([stateStore.close(), streamManager.close()]);
   */
  async close(options: CloseOptions = {}): Promise<void> {
    await closeExecutor(this.logger, options);
    flushHeldSpans(); // the batched spans of steps recorded so far
  }

  /**
   * Retention (see `pruneFinishedSessions`): delete stream chunks and DBOS records of sessions finished longer ago
   * than `olderThanMs`; history, checkpoints, runs and usage stay. @throws InvalidArgumentError `INVALID_ARGUMENT`.
   * @example
   * const { chunksDeleted } = await executor.pruneFinishedSessions({ olderThanMs: 7 * 24 * 3_600_000 });
   */
  async pruneFinishedSessions(options: PruneOptions): Promise<PruneResult> {
    return pruneFinishedSessions(this.config.stateStore, this.config.streamManager, options);
  }

  /**
   * What this runtime supports: DBOS has no workspace providers.
   * @example
   * executor.describeCapabilities(); // { workspaceProviderKinds: [] }
   */
  describeCapabilities(): { workspaceProviderKinds: readonly string[] } {
    return { workspaceProviderKinds: [] };
  }

  /**
   * Workspaces are unsupported on DBOS.
   * @example
   * executor.getWorkspaceRegistry(); // undefined
   */
  getWorkspaceRegistry(): undefined {
    return undefined;
  }
}
