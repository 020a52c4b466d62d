import { DBOS } from '@dbos-inc/dbos-sdk';
import { suspendedCallsOf } from '../orchestration/hitl-decisions.js';
import type { HitlCall } from '../orchestration/hitl-types.js';
import { DBOSWorkflowNotFoundError } from '../errors/index.js';
import { readPersistentMarker } from '../orchestration/persistent-session.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';
import type { AgentResult } from '../types/result.js';
import type { RunRecord, SessionState } from '../types/session.js';
import type { StreamChunk } from '../types/stream.js';
import type { UsageStore } from '../usage/usage-store.js';
import { waitForRunChange } from '../steps/run-signals.js';
import type { HandleCallbacks } from './agent-handle.js';
import { waitingResultOf } from './waiting-result.js';
import { measuredStream } from '../telemetry/agent-spans.js';
import { openCallsOf } from '../store/open-calls.js';
import type { AgentExecutionHandle, ResumeOptions } from './types.js';
import { endsRun } from '../stream/run-end.js';

/** Poll interval of a handle waiting for its turn to start or end (a turn run in this process wakes it at once). */
const POLL_MS = 50;
/** How often a waiting handle checks that the workflow running its turn still exists in DBOS. */
const WORKFLOW_CHECK_MS = 2_000;

/** Advice of a turn whose workflow DBOS lost. */
export const PERSISTENT_WORKFLOW_LOST_ADVICE =
  "send the session's next message with executor.execute() (mode 'persistent'): the session restarts from its stored history, and this turn is recorded failed.";

/** What a persistent turn's handle needs. */
export interface PersistentHandleContext {
  stateStore: SessionStateStore;
  streamManager: StreamManager;
  usageStore?: UsageStore;
  callbacks: HandleCallbacks;
}

/**
 * @internal The handle of one turn of a persistent session: the turn's run is recorded by the session's workflow
 * when it takes the message (a queued message waits for the turns before it), so `stream()` and `result()` wait
 * for that run record, then follow it. Run control is per session: interrupt() cancels the current turn, abort()
 * ends the session's workflow.
 */
export class PersistentTurnHandle<TOutput> implements AgentExecutionHandle<TOutput> {
  constructor(
    readonly sessionId: string,
    readonly runId: string,
    private routedWorkflowId: string,
    private readonly context: PersistentHandleContext,
  ) {}

  /** The workflow running (or to run) this turn. */
  get workflowId(): string {
    return this.routedWorkflowId;
  }

  async *stream(): AsyncIterable<StreamChunk> {
    const run = await this.startedRun();
    if (run === undefined) return;
    const reader = await this.context.streamManager.createReader(this.sessionId, run.startSequence);
    try {
      for await (const chunk of measuredStream(reader)) {
        yield chunk;
        if (endsRun(chunk, this.sessionId)) return;
      }
    } finally {
      await reader.close();
    }
  }

  /**
   * The turn's outcome once it ends, or a `suspended_client_tool` result as soon as it waits for a client tool
   * result or an approval. A message dropped by abort() before its turn started resolves `aborted`.
   */
  async result(): Promise<AgentResult<TOutput>> {
    let checkedAt = Date.now();
    for (;;) {
      const run = await this.context.stateStore.getRun(this.sessionId, this.runId);
      if (run === null) {
        const dropped = await this.droppedResult();
        if (dropped !== undefined) return dropped;
      } else {
        this.routedWorkflowId = run.workflowId ?? this.routedWorkflowId;
        if (run.status !== 'running') return this.resultOf(run);
        const waiting = await this.waitingResult(run);
        if (waiting !== undefined) return waiting;
        if (Date.now() - checkedAt > WORKFLOW_CHECK_MS) {
          checkedAt = Date.now();
          if (run.workflowId !== undefined && (await DBOS.getWorkflowStatus(run.workflowId)) === null) {
            throw new DBOSWorkflowNotFoundError(run.workflowId, PERSISTENT_WORKFLOW_LOST_ADVICE);
          }
        }
      }
      await waitForRunChange(this.runId, POLL_MS);
    }
  }

  async getState(): Promise<SessionState | null> {
    return this.context.stateStore.loadState(this.sessionId);
  }

  async canResume(): Promise<boolean> {
    const state = await this.getState();
    if (state === null || state.failureReason === 'aborted' || state.status === 'completed') return false;
    return state.status === 'interrupted' || state.status === 'paused' || state.status === 'failed' || Object.keys(state.pendingClientToolCalls ?? {}).length > 0;
  }

  async send(input: string | { message: string; state?: Record<string, unknown> }): Promise<AgentExecutionHandle<TOutput>> {
    return this.context.callbacks.send(input) as Promise<AgentExecutionHandle<TOutput>>;
  }

  async resume(options?: ResumeOptions): Promise<AgentExecutionHandle<TOutput>> {
    return this.context.callbacks.resume(options) as Promise<AgentExecutionHandle<TOutput>>;
  }

  async retry(): Promise<AgentExecutionHandle<TOutput>> {
    return this.context.callbacks.retry() as Promise<AgentExecutionHandle<TOutput>>;
  }

  async interrupt(reason?: string): Promise<void> {
    await this.context.callbacks.interrupt(reason);
  }

  async abort(reason?: string): Promise<void> {
    await this.context.callbacks.abort(reason);
  }

  /** The run once the session's workflow took this message (undefined when the message was dropped). */
  private async startedRun(): Promise<RunRecord | undefined> {
    for (;;) {
      const run = await this.context.stateStore.getRun(this.sessionId, this.runId);
      if (run !== null) return run;
      if ((await this.droppedResult()) !== undefined) return undefined;
      await waitForRunChange(this.runId, POLL_MS);
    }
  }

  /** The message never became a turn: the session was aborted first. */
  private async droppedResult(): Promise<AgentResult<TOutput> | undefined> {
    const state = await this.context.stateStore.loadState(this.sessionId);
    if (state?.failureReason !== 'aborted') return undefined;
    if ((await this.context.stateStore.getRun(this.sessionId, this.runId)) !== null) return undefined;
    const marker = readPersistentMarker(state.metadata);
    if (marker?.phase === 'live' && [...(marker.start?.initialMessages ?? [])].some((message) => message.runId === this.runId)) return undefined;
    return { sessionId: this.sessionId, runId: this.runId, status: 'aborted', completionReason: 'aborted', stepCount: 0, error: state.error ?? 'Aborted' };
  }

  private async resultOf(run: RunRecord): Promise<AgentResult<TOutput>> {
    const status = run.status === 'running' ? 'failed' : run.status;
    const output = (run.metadata as { output?: TOutput } | undefined)?.output;
    const suspension = (run.metadata as { suspension?: { stepId?: string; hitlCalls?: HitlCall[] } } | undefined)?.suspension;
    const usage = this.context.usageStore === undefined ? undefined : await this.context.usageStore.getRunUsage(this.sessionId, this.runId);
    return {
      sessionId: this.sessionId,
      runId: this.runId,
      status,
      completionReason: run.completionReason ?? (status === 'suspended_client_tool' ? 'suspended' : status === 'aborted' ? 'aborted' : 'failed'),
      stepCount: run.stepCount,
      ...(output === undefined ? {} : { output }),
      ...(run.error === undefined ? {} : { error: run.error }),
      ...(status === 'suspended_client_tool' && suspension !== undefined
        ? {
            suspended: {
              reason: 'client_tool' as const,
              toolCallIds: (suspension.hitlCalls ?? []).map(({ call }) => call.toolCallId),
              calls: suspendedCallsOf(suspension.hitlCalls ?? []),
              ...(suspension.stepId === undefined ? {} : { stepId: suspension.stepId }),
            },
          }
        : {}),
      ...(usage === undefined ? {} : { usage }),
    };
  }

  /** While the turn waits warm for client tool results or approvals. */
  private async waitingResult(run: RunRecord): Promise<AgentResult<TOutput> | undefined> {
    const state = await this.context.stateStore.loadState(this.sessionId);
    const open = openCallsOf(state).filter((entry) => entry.runId === this.runId);
    if (open.length === 0) return undefined;
    return waitingResultOf({ sessionId: this.sessionId, runId: this.runId, stepCount: run.stepCount, suspendedStepId: state?.suspendedStepId }, open);
  }
}
