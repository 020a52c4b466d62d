import { newRunId } from './run-id.js';
import { isParkedRunStatus } from '../orchestration/session-transitions.js';
import { DBOS } from '@dbos-inc/dbos-sdk';
import type { AgentInput, AnyAgentConfig } from '../agent/index.js';
import {
  AgentAlreadyRunningError,
  DBOSModeMismatchError,
  InvalidArgumentError,
  NotResumableError,
  SessionAlreadyExistsError,
  SessionNotContinuableError,
  SessionNotFoundError,
} from '../errors/index.js';
import { mergeHookManagers, type HookManager } from '../hooks/index.js';
import { persistentWorkflowId } from '../orchestration/ids.js';
import { initializeAgentState } from '../orchestration/initialize-agent-state.js';
import {
  persistentMarkerPatch,
  persistentRestartWorkflowId,
  persistentTurnKey,
  readPersistentMarker,
  type PersistentMarker,
  type PersistentTurnMessage,
  withPersistentMarker,
  type PersistentWorkflowInput,
} from '../orchestration/persistent-session.js';
import { resumeTurnInput } from '../orchestration/resume-turn.js';
import { workflowHookManagers } from '../steps/runtime-registry.js';
import { takeForResume } from '../store/take-for-resume.js';
import type { RunRecord, SessionState } from '../types/session.js';
import { startPersistentWorkflow } from '../workflows/persistent.workflow.js';
import { currentPlacement } from './run-placement.js';
import type { QueuePlacement } from '../orchestration/queue-placement.js';
import type { HandleCallbacks } from './agent-handle.js';
import { PersistentTurnHandle } from './persistent-handle.js';
import { settleIdleTimeout } from './persistent-idle.js';
import { routePersistentMessage } from './persistent-router.js';
import { abortSession } from './run-control.js';
import { DEFAULT_HITL_WARM_WINDOW_MS } from './run-launcher.js';
import { rewindSession, rewindTarget } from './session-rewind.js';
import type { AgentExecutionHandle, DBOSAgentExecutorConfig, ExecuteOptions, ResumeOptions, RetryOptions } from './types.js';
import { journalStamp } from '../journal/format.js';

/** Default idle timeout of a persistent session (24 h). */
export const DEFAULT_PERSISTENT_IDLE_TIMEOUT_MS = 86_400_000;
/** Default time a persistent session's workflow waits for the next message before it parks. */
export const DEFAULT_PERSISTENT_WARM_WINDOW_MS = 60_000;

/**
 * @internal Persistent-mode sessions for `DBOSAgentExecutor`: one receive-loop workflow per session (generation),
 * messages routed into its inbox, a handle per turn.
 */
export class PersistentSessions {
  constructor(
    private readonly config: DBOSAgentExecutorConfig,
    private readonly hookManager: HookManager,
    private readonly callbacks: (agent: AnyAgentConfig, sessionId: string) => HandleCallbacks,
  ) {}

  /** `execute(agent, input, { sessionId, mode: 'persistent' })`: create the session, or send it the message. */
  async execute(agent: AnyAgentConfig, input: AgentInput, options: ExecuteOptions): Promise<AgentExecutionHandle<any>> {
    const { stateStore } = this.config;
    const { sessionId } = options;
    if (options.branch !== undefined)
      throw new InvalidArgumentError('A persistent session cannot be started as a branch; branch in standard mode.', { sessionId });
    const idleTimeoutMs = validIdleTimeout(options.idleTimeoutMs);
    const runId = newRunId();
    const existing = await stateStore.loadState(sessionId);
    if (existing === null) {
      const initial = initializeAgentState(agent, input, { runId });
      const message: PersistentTurnMessage = { kind: 'turn', runId, userMessage: initial.message, ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }) };
      const start = this.startInput(agent, sessionId, persistentWorkflowId(agent.name, sessionId), 0, [message], idleTimeoutMs);
      const marker: PersistentMarker = { workflowId: start.workflowId, phase: 'live', generation: 0, start };
      try {
        await stateStore.createSession(sessionId, {
          agentType: agent.name,
          customState: initial.customState,
          status: 'active',
          mode: 'persistent',
          streamId: sessionId,
          ...(options.userId === undefined ? {} : { userId: options.userId }),
          ...(options.tags === undefined ? {} : { tags: options.tags }),
          metadata: withPersistentMarker(options.metadata, marker),
        });
      } catch (error) {
        if (!SessionAlreadyExistsError.isInstance(error)) throw error;
        return this.execute(agent, input, options);
      }
      this.registerHooks(agent, runId, options);
      await startPersistentWorkflow(start);
      return this.handle(agent, sessionId, runId, start.workflowId);
    }
    this.assertPersistent(agent, existing);
    if (existing.failureReason === 'aborted') throw new SessionNotContinuableError(sessionId, 'failed');
    if (await parkedForHumans(this.config, existing)) throw new AgentAlreadyRunningError(sessionId, 'suspended_client_tool');
    const initial = initializeAgentState(agent, input, { runId, existingState: existing.customState });
    const withState = typeof input === 'object' && input.state !== undefined;
    const message: PersistentTurnMessage = {
      kind: 'turn',
      runId,
      userMessage: initial.message,
      ...(withState ? { initialState: initial.customState as Record<string, unknown> } : {}),
      ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    };
    return this.deliver(agent, sessionId, message, options, { knownState: existing });
  }

  /** resume() of a persistent session: a turn parked for a human (restarts the session), or an interrupted/failed one. */
  async resume(agent: AnyAgentConfig, sessionId: string, options: ResumeOptions): Promise<AgentExecutionHandle<any>> {
    const { stateStore } = this.config;
    for (;;) {
      const state = await stateStore.loadState(sessionId);
      if (state === null) throw new SessionNotFoundError(sessionId);
      this.assertPersistent(agent, state);
      const run = await stateStore.getCurrentRun(sessionId);
      if (state.failureReason === 'aborted')
        throw new NotResumableError(sessionId, 'aborted', 'an aborted session cannot be resumed; use retry() or a new session.');
      const parked = await parkedForHumans(this.config, state);
      if (!parked && state.status !== 'interrupted' && state.status !== 'paused') {
        if (state.status === 'active' && run !== null && run.status === 'running') return this.handle(agent, sessionId, run.runId, run.workflowId ?? '');
        throw new NotResumableError(
          sessionId,
          state.status,
          state.status === 'failed' ? 'use retry() for a failed turn.' : 'use execute() to send the next message.',
        );
      }
      const rewindTo = options.mode === 'from_checkpoint' ? await rewindTarget(stateStore, sessionId, options.checkpointId) : undefined;
      if (!(await takeForResume(stateStore, sessionId, state, parked))) continue;
      await stateStore.incrementResumeCount(sessionId);
      const runId = newRunId();
      if (rewindTo !== undefined) await rewindSession(stateStore, sessionId, rewindTo);
      const turn = resumeTurnInput(state.pendingClientToolCalls ?? {}, run, runId, options);
      const message: PersistentTurnMessage = { kind: 'turn', runId, ...turn };
      return this.deliver(agent, sessionId, message, options, { resumesParkedTurn: parked });
    }
  }

  /** retry() of a persistent session whose last turn failed or that was aborted: a turn continuing from the history. */
  async retry(agent: AnyAgentConfig, sessionId: string, options: RetryOptions): Promise<AgentExecutionHandle<any>> {
    const { stateStore } = this.config;
    const state = await stateStore.loadState(sessionId);
    if (state === null) throw new SessionNotFoundError(sessionId);
    this.assertPersistent(agent, state);
    if (state.status !== 'failed') throw new NotResumableError(sessionId, state.status, 'only a failed session can be retried.');
    const run = await stateStore.getCurrentRun(sessionId);
    const swapped = await stateStore.compareAndSetStatus(sessionId, ['failed'], 'active', { expectedVersion: state.version });
    if (!swapped.ok) {
      const current = await stateStore.getCurrentRun(sessionId);
      if (current !== null) return this.handle(agent, sessionId, current.runId, current.workflowId ?? '');
      throw new AgentAlreadyRunningError(sessionId, swapped.currentStatus ?? 'missing');
    }
    await stateStore.saveState(sessionId, { error: undefined, failureReason: undefined });
    await stateStore.clearInterruptFlag(sessionId);
    const runId = newRunId();
    const message: PersistentTurnMessage = { kind: 'turn', runId, ...(run === null ? {} : { resume: { previousRunId: run.runId } }) };
    return this.deliver(agent, sessionId, message, options, {});
  }

  /**
   * abort() of a persistent session: the workflow ends (cancelled, recorded `closed`/`aborted`), a running turn
   * is recorded aborted, queued messages are dropped (their handles resolve `aborted`), companions are terminated.
   */
  async abort(sessionId: string, reason?: string): Promise<void> {
    const { stateStore, streamManager } = this.config;
    const state = await stateStore.loadState(sessionId);
    const marker = readPersistentMarker(state?.metadata);
    if (state === null || marker === undefined) return;
    const error = reason === undefined ? 'Aborted' : `Aborted: ${reason}`;
    await stateStore.patchMetadata(sessionId, persistentMarkerPatch({ ...marker, phase: 'closed', endReason: 'aborted', deferred: [] }));
    if (marker.phase !== 'closed') await DBOS.cancelWorkflow(marker.workflowId, { cancelChildren: true });
    const abortedRun = await abortSession(stateStore, streamManager, sessionId, reason);
    if (!abortedRun) await stateStore.updateStatus(sessionId, 'failed', { error, failureReason: 'aborted' });
  }

  /** getHandle() of a persistent session: its current turn's handle; a parked session past its idle timeout is recorded `idle_timeout` first. */
  async currentHandle(agent: AnyAgentConfig, sessionId: string): Promise<AgentExecutionHandle<any> | null> {
    await settleIdleTimeout(this.config.stateStore, sessionId);
    const run = await this.config.stateStore.getCurrentRun(sessionId);
    return run === null ? null : this.handleFor(agent, sessionId, run);
  }

  /** A handle for a recorded turn. */
  handleFor(agent: AnyAgentConfig, sessionId: string, run: Pick<RunRecord, 'runId' | 'workflowId'>): AgentExecutionHandle<any> {
    return this.handle(agent, sessionId, run.runId, run.workflowId ?? '');
  }

  private async deliver(
    agent: AnyAgentConfig,
    sessionId: string,
    message: PersistentTurnMessage,
    options: Pick<ExecuteOptions, 'hooks' | 'hookManager'>,
    route: { resumesParkedTurn?: boolean; knownState?: SessionState },
  ): Promise<AgentExecutionHandle<any>> {
    this.registerHooks(agent, message.runId, options);
    try {
      const routed = await routePersistentMessage(this.config.stateStore, sessionId, message, {
        ...route,
        restartInput: (state, marker, carried) => this.restartInput(agent, state, marker, carried),
      });
      return this.handle(agent, sessionId, message.runId, routed.workflowId);
    } catch (error) {
      workflowHookManagers.unregister(persistentTurnKey(message.runId));
      throw error;
    }
  }

  private restartInput(
    agent: AnyAgentConfig,
    state: SessionState,
    marker: PersistentMarker | undefined,
    carried: PersistentTurnMessage[],
  ): PersistentWorkflowInput {
    const generation = (marker?.generation ?? 0) + 1;
    const override = [...carried].reverse().find((message) => message.idleTimeoutMs !== undefined)?.idleTimeoutMs;
    const previous = marker?.start;
    const workflowId = persistentRestartWorkflowId(agent.name, state.sessionId, generation);
    if (previous === undefined) return this.startInput(agent, state.sessionId, workflowId, generation, carried, override);
    return { ...previous, workflowId, generation, initialMessages: carried, ...(override === undefined ? {} : { idleTimeoutMs: override }) };
  }

  private startInput(
    agent: AnyAgentConfig,
    sessionId: string,
    workflowId: string,
    generation: number,
    initialMessages: PersistentTurnMessage[],
    idleTimeoutMs: number | undefined,
  ): PersistentWorkflowInput {
    return {
      sessionId,
      agentType: agent.name,
      streamId: sessionId,
      workflowId,
      generation,
      rootSessionId: sessionId,
      hitlWarmWindowMs: this.config.hitlWarmWindowMs ?? DEFAULT_HITL_WARM_WINDOW_MS,
      idleWarmWindowMs: this.config.persistentWarmWindowMs ?? DEFAULT_PERSISTENT_WARM_WINDOW_MS,
      idleTimeoutMs: idleTimeoutMs ?? this.config.defaultPersistentIdleTimeoutMs ?? DEFAULT_PERSISTENT_IDLE_TIMEOUT_MS,
      initialMessages,
      journal: journalStamp(),
      ...withQueue(currentPlacement()),
    };
  }

  private registerHooks(agent: AnyAgentConfig, runId: string, options: Pick<ExecuteOptions, 'hooks' | 'hookManager'>): void {
    workflowHookManagers.register(persistentTurnKey(runId), mergeHookManagers(this.hookManager, agent.hooks, options.hooks, options.hookManager));
  }

  private handle(agent: AnyAgentConfig, sessionId: string, runId: string, workflowId: string): AgentExecutionHandle<any> {
    return new PersistentTurnHandle(sessionId, runId, workflowId, {
      stateStore: this.config.stateStore,
      streamManager: this.config.streamManager,
      ...(this.config.usageStore === undefined ? {} : { usageStore: this.config.usageStore }),
      callbacks: this.callbacks(agent, sessionId),
    });
  }

  private assertPersistent(agent: AnyAgentConfig, state: SessionState): void {
    const mode = state.mode ?? 'standard';
    if (mode !== 'persistent') throw new DBOSModeMismatchError(state.sessionId, mode, 'persistent');
    if (state.agentType !== agent.name) throw new SessionNotContinuableError(state.sessionId, `owned by agent "${state.agentType}"`);
  }
}

/** A persistent session whose current turn parked waiting for a human (resume() continues it). */
async function parkedForHumans(config: DBOSAgentExecutorConfig, state: SessionState): Promise<boolean> {
  if (state.status !== 'active' || state.suspendedStepId === undefined) return false;
  return isParkedRunStatus((await config.stateStore.getCurrentRun(state.sessionId))?.status);
}

function validIdleTimeout(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value <= 0)
    throw new InvalidArgumentError('idleTimeoutMs must be a positive number of milliseconds.', { idleTimeoutMs: value });
  return value;
}

/**
 * True when a session was created in persistent mode.
 *
 * @example
 * if (await isPersistentSession(stateStore, sessionId)) { ... }
 */
export function isPersistentState(state: SessionState | null): boolean {
  return state?.mode === 'persistent';
}

function withQueue(queue: QueuePlacement | undefined): { queue?: QueuePlacement } {
  return queue === undefined ? {} : { queue };
}
