import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { AgentConfig, AgentInput, AnyAgentConfig } from '../agent/index.js';
import {
  AgentAlreadyRunningError,
  DBOSModeMismatchError,
  InvalidArgumentError,
  NotResumableError,
  SessionAlreadyExistsError,
  SessionIdRequiredError,
  SessionNotContinuableError,
  SessionNotFoundError,
  WorkspaceUnsupportedError,
} from '../errors/index.js';
import { HookManager, noopLogger } from '../hooks/index.js';
import { initializeAgentState } from '../orchestration/index.js';
import { bindRuntimeDependencies, registerAgent } from '../steps/runtime-registry.js';
import { resolveToolRetryPolicy } from '../steps/tool-retry-policy.js';
import { registerDBOSAgentWorkflows } from '../workflows/agent.workflow.js';
import { repairLostStart } from './lost-start.js';
import { isPersistentState, PersistentSessions } from './persistent-sessions.js';
import { abortSession, interruptSession } from './run-control.js';
import { RunLauncher } from './run-launcher.js';
import { resumeTurnInput } from '../orchestration/resume-turn.js';
import { takeForResume } from '../store/take-for-resume.js';
import { rewindSession, rewindTarget } from './session-rewind.js';
import { submitToolResult, type SubmitToolResult, type SubmitToolResultResponse } from './submit-tool-result.js';
import type { AgentExecutionHandle, DBOSAgentExecutorConfig, ExecuteOptions, ResumeOptions, RetryOptions } from './types.js';

type Agent<TState, TOutput> = AgentConfig<z.ZodType<TState>, z.ZodType<TOutput>>;

/**
 * Runs agents as DBOS durable workflows on Postgres. The constructor binds every step's dependencies and
 * registers the workflows; construct it (and register agents a recovering process may meet) before
 * `DBOS.launch()`.
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
    bindRuntimeDependencies({
      stateStore: config.stateStore,
      streamManager: config.streamManager,
      llmAdapter: config.llmAdapter,
      ...(config.usageStore === undefined ? {} : { usageStore: config.usageStore }),
      hookManager,
      logger: this.logger,
      toolRetryPolicy: resolveToolRetryPolicy(config.toolRetryPolicy),
    });
    this.launcher = new RunLauncher(config, hookManager, (agent, sessionId) => ({
      send: (input) => this.execute(agent, input, { sessionId }),
      resume: (options) => this.resume(agent, sessionId, options),
      retry: () => this.retry(agent, sessionId),
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
   * @throws DBOSPersistentSessionTerminatedError `DBOS_PERSISTENT_SESSION_TERMINATED` (persistent mode) when
   *   restarting the session's ended workflow kept losing races; retry once.
   * @throws InvalidArgumentError `INVALID_ARGUMENT` for input that is not a string or `{ message, state? }`.
   * @example
   * const handle = await executor.execute(agent, { message: 'Hi', state: { user: 'ada' } }, { sessionId: 's1' });
   */
  async execute<TState, TOutput>(agent: Agent<TState, TOutput>, input: AgentInput<TState>, options: ExecuteOptions): Promise<AgentExecutionHandle<TOutput>> {
    const sessionId = options?.sessionId;
    if (typeof sessionId !== 'string' || sessionId.length === 0) throw new SessionIdRequiredError();
    if (agent.workspace !== undefined) throw new WorkspaceUnsupportedError(agent.name);
    const any = agent as AnyAgentConfig;
    const mode = options.mode ?? 'standard';
    if (mode !== 'standard' && mode !== 'persistent') throw new InvalidArgumentError("options.mode must be 'standard' or 'persistent'.", { mode });
    registerAgent(any);
    if (mode === 'persistent') return this.persistent.execute(any, input, options);
    const { stateStore } = this.config;
    const runId = `run-${randomUUID()}`;

    const existing = await stateStore.loadState(sessionId);
    if (existing === null) {
      if (options.branch !== undefined) return this.branch(any, input, runId, options);
      const initial = initializeAgentState(any, input as AgentInput, { runId });
      try {
        await stateStore.createSession(sessionId, {
          agentType: agent.name,
          customState: initial.customState,
          status: 'active',
          mode,
          streamId: sessionId,
          ...(options.userId === undefined ? {} : { userId: options.userId }),
          ...(options.tags === undefined ? {} : { tags: options.tags }),
          ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
        });
      } catch (error) {
        if (!SessionAlreadyExistsError.isInstance(error)) throw error;
        return this.launcher.handleOfRunningSession(any, sessionId, undefined);
      }
      return this.launcher.startRun(any, sessionId, runId, { userMessage: initial.message }, options);
    }

    if (existing.agentType !== agent.name) throw new SessionNotContinuableError(sessionId, `owned by agent "${existing.agentType}"`);
    if (existing.mode !== undefined && existing.mode !== mode) throw new DBOSModeMismatchError(sessionId, existing.mode, mode);
    if (existing.status === 'active') {
      if (await repairLostStart(stateStore, sessionId)) return this.execute(agent, input, options);
      // A parked session waits for humans: a new message must go through submitToolResult()/resume(), not be dropped.
      if (existing.suspendedStepId !== undefined && (await stateStore.getCurrentRun(sessionId))?.status === 'suspended_client_tool') {
        throw new AgentAlreadyRunningError(sessionId, 'suspended_client_tool');
      }
      return this.launcher.handleOfRunningSession(any, sessionId, undefined);
    }
    if (existing.status !== 'completed') throw new SessionNotContinuableError(sessionId, existing.status);

    const initial = initializeAgentState(any, input as AgentInput, { runId, existingState: existing.customState });
    const previousRun = await stateStore.getCurrentRun(sessionId);
    const swapped = await stateStore.compareAndSetStatus(sessionId, ['completed'], 'active', { expectedVersion: existing.version });
    if (!swapped.ok) {
      if (swapped.currentStatus === 'active') return this.launcher.handleOfRunningSession(any, sessionId, previousRun?.runId);
      throw new AgentAlreadyRunningError(sessionId, swapped.currentStatus ?? 'missing');
    }
    await this.config.streamManager.reactivateStream(existing.streamId ?? sessionId);
    const withState = typeof input === 'object' && input.state !== undefined;
    return this.launcher.startRun(any, sessionId, runId, { userMessage: initial.message, ...(withState ? { initialState: initial.customState } : {}) }, options);
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
   */
  async resume<TState, TOutput>(agent: Agent<TState, TOutput>, sessionId: string, options: ResumeOptions = {}): Promise<AgentExecutionHandle<TOutput>> {
    const any = agent as AnyAgentConfig;
    registerAgent(any);
    const { stateStore } = this.config;
    if (isPersistentState(await stateStore.loadState(sessionId))) return this.persistent.resume(any, sessionId, options);
    for (;;) {
      const state = await stateStore.loadState(sessionId);
      if (state === null) throw new SessionNotFoundError(sessionId);
      const run = await stateStore.getCurrentRun(sessionId);
      if (state.failureReason === 'aborted') throw new NotResumableError(sessionId, 'aborted', 'an aborted session cannot be resumed; use retry() or a new session.');
      // A parked session keeps `suspendedStepId` until a resume takes it (see takeForResume).
      const parked = state.status === 'active' && run?.status === 'suspended_client_tool' && state.suspendedStepId !== undefined;
      if (state.status === 'active' && !parked) {
        if (await repairLostStart(stateStore, sessionId)) continue;
        if (run === null) throw new NotResumableError(sessionId, 'active', 'the session has no run.');
        // A concurrent resume won the CAS but has not recorded its run yet: wait for that run, not the ended one.
        if (run.status !== 'running') return this.launcher.handleOfRunningSession(any, sessionId, run.runId);
        return this.launcher.handleFor(any, sessionId, run);
      }
      if (!parked && state.status !== 'interrupted' && state.status !== 'paused') {
        throw new NotResumableError(sessionId, state.status, state.status === 'failed' ? 'use retry() for a failed session.' : 'use execute() to start a new turn.');
      }
      // Validate a rewind target before taking the session: a throw after the swap would leave it `active` with no run.
      const rewindTo = options.mode === 'from_checkpoint' ? await rewindTarget(stateStore, sessionId, options.checkpointId) : undefined;
      if (!(await takeForResume(stateStore, sessionId, state, parked))) {
        const current = await stateStore.getCurrentRun(sessionId);
        if (current !== null && current.runId !== run?.runId) return this.launcher.handleOfRunningSession(any, sessionId, run?.runId);
        continue; // another writer (e.g. a submission or a concurrent resume) changed the session: decide again
      }
      await stateStore.incrementResumeCount(sessionId);
      const runId = `run-${randomUUID()}`;
      if (rewindTo !== undefined) await rewindSession(stateStore, sessionId, rewindTo);
      const turn = resumeTurnInput(state.pendingClientToolCalls ?? {}, run, runId, options);
      await this.config.streamManager.reactivateStream(state.streamId ?? sessionId);
      return this.launcher.startRun(any, sessionId, runId, turn, options);
    }
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
    const any = agent as AnyAgentConfig;
    registerAgent(any);
    const { stateStore } = this.config;
    const state = await stateStore.loadState(sessionId);
    if (state === null) throw new SessionNotFoundError(sessionId);
    if (isPersistentState(state)) return this.persistent.retry(any, sessionId, options);
    const run = await stateStore.getCurrentRun(sessionId);
    if (state.status !== 'failed') throw new NotResumableError(sessionId, state.status, 'only a failed session can be retried.');
    const swapped = await stateStore.compareAndSetStatus(sessionId, ['failed'], 'active', { expectedVersion: state.version });
    if (!swapped.ok) return this.launcher.handleOfRunningSession(any, sessionId, run?.runId);
    await stateStore.saveState(sessionId, { error: undefined, failureReason: undefined });
    await stateStore.clearInterruptFlag(sessionId); // a flag left by abort() must not stop the retried run
    await this.config.streamManager.reactivateStream(state.streamId ?? sessionId);
    const runId = `run-${randomUUID()}`;
    return this.launcher.startRun(any, sessionId, runId, run === null ? {} : { resume: { previousRunId: run.runId } }, options);
  }

  /**
   * Answer a pending client-executed tool call or approval request, exactly once. Wakes a warm run in place
   * (same runId); for a parked run, call `resume()` afterwards.
   *
   * @throws InvalidSubmissionError `INVALID_SUBMISSION` for a malformed payload (nothing is changed).
   * @example
   * const { status } = await executor.submitToolResult({ kind: 'client-tool-result', sessionId, toolCallId, result: { city: 'Oslo' } });
   */
  async submitToolResult(params: SubmitToolResult): Promise<SubmitToolResultResponse> {
    return submitToolResult(this.config.stateStore, this.logger, params);
  }

  /**
   * Reconnect to a session's latest run without starting anything. `null` when the session does not exist.
   *
   * @example
   * const handle = await executor.getHandle(agent, 'trip-1');
   * if (handle) console.log((await handle.result()).status);
   */
  async getHandle<TState, TOutput>(agent: Agent<TState, TOutput>, sessionId: string): Promise<AgentExecutionHandle<TOutput> | null> {
    registerAgent(agent as AnyAgentConfig);
    const run = await this.config.stateStore.getCurrentRun(sessionId);
    if (run === null) return null;
    if (isPersistentState(await this.config.stateStore.loadState(sessionId))) return this.persistent.handleFor(agent as AnyAgentConfig, sessionId, run);
    return this.launcher.handleFor(agent as AnyAgentConfig, sessionId, run);
  }

  /**
   * What this runtime supports. DBOS has no workspace providers.
   *
   * @example
   * executor.describeCapabilities(); // { workspaceProviderKinds: [] }
   */
  describeCapabilities(): { workspaceProviderKinds: readonly string[] } {
    return { workspaceProviderKinds: [] };
  }

  /**
   * Workspaces are unsupported on DBOS.
   *
   * @example
   * executor.getWorkspaceRegistry(); // undefined
   */
  getWorkspaceRegistry(): undefined {
    return undefined;
  }

  private async branch(agent: AnyAgentConfig, input: AgentInput, runId: string, options: ExecuteOptions): Promise<AgentExecutionHandle<any>> {
    const { stateStore } = this.config;
    const { sessionId, branch } = options;
    if (branch === undefined) throw new Error('unreachable');
    try {
      await stateStore.cloneSession(branch.fromSessionId, sessionId, { agentType: agent.name, ...(branch.checkpointId === undefined ? {} : { checkpointId: branch.checkpointId }) });
    } catch (error) {
      if (!SessionAlreadyExistsError.isInstance(error)) throw error;
      return this.launcher.handleOfRunningSession(agent, sessionId, undefined);
    }
    const cloned = await stateStore.loadState(sessionId);
    const initial = initializeAgentState(agent, input, { runId, existingState: cloned?.customState ?? {} });
    await stateStore.saveState(sessionId, { status: 'active', streamId: sessionId, customState: initial.customState, output: undefined, error: undefined });
    return this.launcher.startRun(agent, sessionId, runId, { userMessage: initial.message }, options);
  }
}
