import { randomUUID } from 'node:crypto';
import { DBOS, type WorkflowHandle } from '@dbos-inc/dbos-sdk';
import type { z } from 'zod';
import type { AgentConfig, AgentInput, AnyAgentConfig } from '../agent/index.js';
import {
  DBOSModeMismatchError,
  SessionAlreadyExistsError,
  SessionIdRequiredError,
  SessionNotContinuableError,
  WorkspaceUnsupportedError,
  AgentAlreadyRunningError,
} from '../errors/index.js';
import { HookManager, mergeHookManagers, noopLogger } from '../hooks/index.js';
import { initializeAgentState } from '../orchestration/index.js';
import { markWorkflowStartedHere } from '../steps/call-llm.step.js';
import { bindRuntimeDependencies, registerAgent, workflowHookManagers } from '../steps/runtime-registry.js';
import { resolveToolRetryPolicy } from '../steps/tool-retry-policy.js';
import type { RunRecord } from '../types/session.js';
import { AgentWorkflows, registerDBOSAgentWorkflows, type AgentWorkflowInput } from '../workflows/agent.workflow.js';
import { standardWorkflowId } from '../workflows/workflow-ids.js';
import { DBOSAgentHandle } from './agent-handle.js';
import type { AgentExecutionHandle, DBOSAgentExecutorConfig, ExecuteOptions } from './types.js';

/** Default warm window of a human-in-the-loop wait. */
const DEFAULT_HITL_WARM_WINDOW_MS = 60_000;

/** How long a concurrent execute() waits for the winning call's run record to appear. */
const RUN_RECORD_WAIT_MS = 10_000;

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
  private readonly hookManager: HookManager;

  constructor(config: DBOSAgentExecutorConfig) {
    this.config = config;
    const logger = config.logger ?? noopLogger;
    this.hookManager = config.hookManager ?? new HookManager({ logger });
    registerDBOSAgentWorkflows();
    bindRuntimeDependencies({
      stateStore: config.stateStore,
      streamManager: config.streamManager,
      llmAdapter: config.llmAdapter,
      ...(config.usageStore === undefined ? {} : { usageStore: config.usageStore }),
      hookManager: this.hookManager,
      logger,
      toolRetryPolicy: resolveToolRetryPolicy(config.toolRetryPolicy),
    });
  }

  /**
   * Start a run in a session: a new session, or a new turn of a `completed` one (it sees the whole
   * conversation, with a fresh `maxSteps` budget). While the session runs, returns a handle to that run.
   *
   * @throws SessionIdRequiredError `SESSION_ID_REQUIRED` without `options.sessionId`.
   * @throws WorkspaceUnsupportedError `WORKSPACE_UNSUPPORTED` when the agent declares a workspace.
   * @throws DBOSModeMismatchError `DBOS_MODE_MISMATCH` when `options.mode` differs from the session's.
   * @throws SessionNotContinuableError `SESSION_NOT_CONTINUABLE` for a failed/interrupted/paused session.
   * @throws InvalidArgumentError `INVALID_ARGUMENT` for input that is not a string or `{ message, state? }`.
   * @example
   * const handle = await executor.execute(agent, { message: 'Hi', state: { user: 'ada' } }, { sessionId: 's1' });
   */
  async execute<TState, TOutput>(
    agent: AgentConfig<z.ZodType<TState>, z.ZodType<TOutput>>,
    input: AgentInput<TState>,
    options: ExecuteOptions,
  ): Promise<AgentExecutionHandle<TOutput>> {
    const sessionId = options?.sessionId;
    if (typeof sessionId !== 'string' || sessionId.length === 0) throw new SessionIdRequiredError();
    if (agent.workspace !== undefined) throw new WorkspaceUnsupportedError(agent.name);
    const mode = options.mode ?? 'standard';
    registerAgent(agent as AnyAgentConfig);
    const { stateStore } = this.config;
    const runId = `run-${randomUUID()}`;

    const existing = await stateStore.loadState(sessionId);
    if (existing === null) {
      const initial = initializeAgentState(agent as AnyAgentConfig, input as AgentInput, { runId });
      try {
        await stateStore.createSession(sessionId, {
          agentType: agent.name,
          customState: initial.customState,
          status: 'active',
          mode,
          streamId: sessionId,
          ...pick(options, ['userId', 'tags', 'metadata']),
        });
      } catch (error) {
        if (!SessionAlreadyExistsError.isInstance(error)) throw error;
        return this.handleOfRunningSession(agent, sessionId, undefined);
      }
      return this.startRun(agent, sessionId, runId, { userMessage: initial.message }, options);
    }

    if (existing.agentType !== agent.name) throw new SessionNotContinuableError(sessionId, `owned by agent "${existing.agentType}"`);
    if (existing.mode !== undefined && existing.mode !== mode) throw new DBOSModeMismatchError(sessionId, existing.mode, mode);
    if (existing.status === 'active') return this.handleOfRunningSession(agent, sessionId, undefined);
    if (existing.status !== 'completed') throw new SessionNotContinuableError(sessionId, existing.status);

    const initial = initializeAgentState(agent as AnyAgentConfig, input as AgentInput, { runId, existingState: existing.customState });
    const previousRun = await stateStore.getCurrentRun(sessionId);
    const swapped = await stateStore.compareAndSetStatus(sessionId, ['completed'], 'active', { expectedVersion: existing.version });
    if (!swapped.ok) {
      if (swapped.currentStatus === 'active') return this.handleOfRunningSession(agent, sessionId, previousRun?.runId);
      throw new AgentAlreadyRunningError(sessionId, swapped.currentStatus ?? 'missing');
    }
    await this.config.streamManager.reactivateStream(existing.streamId ?? sessionId);
    return this.startRun(
      agent,
      sessionId,
      runId,
      { userMessage: initial.message, ...(typeof input === 'object' && input.state !== undefined ? { initialState: initial.customState as Record<string, unknown> } : {}) },
      options,
    );
  }

  /**
   * Reconnect to a session's latest run without starting anything. `null` when the session does not exist.
   *
   * @example
   * const handle = await executor.getHandle(agent, 'trip-1');
   * if (handle) console.log((await handle.result()).status);
   */
  async getHandle<TState, TOutput>(
    agent: AgentConfig<z.ZodType<TState>, z.ZodType<TOutput>>,
    sessionId: string,
  ): Promise<AgentExecutionHandle<TOutput> | null> {
    registerAgent(agent as AnyAgentConfig);
    const state = await this.config.stateStore.loadState(sessionId);
    if (state === null) return null;
    const run = await this.config.stateStore.getCurrentRun(sessionId);
    if (run === null) return null;
    return this.handleFor(agent, sessionId, run);
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

  private async startRun<TState, TOutput>(
    agent: AgentConfig<z.ZodType<TState>, z.ZodType<TOutput>>,
    sessionId: string,
    runId: string,
    turn: Pick<AgentWorkflowInput, 'userMessage' | 'initialState'>,
    options: ExecuteOptions,
  ): Promise<AgentExecutionHandle<TOutput>> {
    const { stateStore, streamManager } = this.config;
    const streamId = sessionId;
    const startSequence = (await streamManager.getInfo(streamId))?.lastSequence ?? 0;
    const workflowId = standardWorkflowId(agent.name, sessionId, runId);
    const workflowInput: AgentWorkflowInput = {
      sessionId,
      runId,
      agentType: agent.name,
      streamId,
      workflowId,
      startSequence,
      rootSessionId: sessionId,
      warmWindowMs: this.config.hitlWarmWindowMs ?? DEFAULT_HITL_WARM_WINDOW_MS,
      ...turn,
    };
    const previous = await stateStore.getCurrentRun(sessionId);
    await stateStore.createRun(sessionId, {
      runId,
      status: 'running',
      stepCount: 0,
      startSequence,
      workflowId,
      startedAt: Date.now(),
      ...(previous === null ? {} : { previousRunId: previous.runId }),
      metadata: { workflowInput },
    });
    workflowHookManagers.register(workflowId, mergeHookManagers(this.hookManager, agent.hooks, options.hooks, options.hookManager));
    const live = await this.startWorkflow(workflowInput);
    return this.handleFor(agent, sessionId, { runId, workflowId, startSequence } as RunRecord, live);
  }

  private async startWorkflow(input: AgentWorkflowInput): Promise<WorkflowHandle<unknown>> {
    markWorkflowStartedHere(input.workflowId);
    return DBOS.startWorkflow(AgentWorkflows.runAgent, { workflowID: input.workflowId })(input);
  }

  /**
   * The session is active: return a handle to its current run (waiting briefly for a concurrent winner to
   * record it), restarting the run's workflow if a crash came between the run record and its start.
   */
  private async handleOfRunningSession<TState, TOutput>(
    agent: AgentConfig<z.ZodType<TState>, z.ZodType<TOutput>>,
    sessionId: string,
    previousRunId: string | undefined,
  ): Promise<AgentExecutionHandle<TOutput>> {
    const deadline = Date.now() + RUN_RECORD_WAIT_MS;
    for (;;) {
      const run = await this.config.stateStore.getCurrentRun(sessionId);
      if (run !== null && run.runId !== previousRunId && run.workflowId !== undefined) {
        if ((await DBOS.getWorkflowStatus(run.workflowId)) === null) {
          const input = (run.metadata as { workflowInput?: AgentWorkflowInput } | undefined)?.workflowInput;
          if (input !== undefined && Date.now() - run.startedAt > 2_000) await this.startWorkflow(input);
          else if (input === undefined) throw new AgentAlreadyRunningError(sessionId, 'active');
          else {
            await new Promise((resolve) => setTimeout(resolve, 25));
            continue;
          }
        }
        return this.handleFor(agent, sessionId, run);
      }
      if (Date.now() > deadline) throw new AgentAlreadyRunningError(sessionId, 'active');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  private handleFor<TState, TOutput>(
    agent: AgentConfig<z.ZodType<TState>, z.ZodType<TOutput>>,
    sessionId: string,
    run: Pick<RunRecord, 'runId' | 'workflowId' | 'startSequence'>,
    liveHandle?: WorkflowHandle<unknown>,
  ): AgentExecutionHandle<TOutput> {
    const workflowId = run.workflowId ?? standardWorkflowId(agent.name, sessionId, run.runId);
    return new DBOSAgentHandle<TOutput>(sessionId, run.runId, workflowId, {
      stateStore: this.config.stateStore,
      streamManager: this.config.streamManager,
      streamId: sessionId,
      startSequence: run.startSequence,
      send: (input) => this.execute(agent, input as AgentInput<TState>, { sessionId }),
      ...(liveHandle === undefined ? {} : { liveHandle }),
    });
  }
}

function pick<T extends object, K extends keyof T>(value: T, keys: K[]): Partial<Pick<T, K>> {
  const picked: Partial<Pick<T, K>> = {};
  for (const key of keys) if (value[key] !== undefined) picked[key] = value[key];
  return picked;
}
