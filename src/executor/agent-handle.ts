import { DBOS, type WorkflowHandle } from '@dbos-inc/dbos-sdk';
import { DBOSStepContextError, DBOSWorkflowNotFoundError } from '../errors/index.js';
import { isDBOSControlError } from '../workflows/dbos-control-errors.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';
import type { AgentResult } from '../types/result.js';
import type { SessionState } from '../types/session.js';
import type { StreamChunk } from '../types/stream.js';
import { sessionSignal, waitForRunChange, type RunChangeWatch } from '../steps/run-signals.js';
import { MISSING_WORKFLOW_AFTER_MS, repairStuckRun } from './stuck-run.js';
import { storedWaitingResult } from './waiting-result.js';
import { abortedResultOf } from '../orchestration/abort-text.js';
import { awaitRemoteResult, type EndHint } from './remote-result.js';
import { remoteRunChange } from './remote-looks.js';
import type { AgentExecutionHandle, ResumeOptions, RetryOptions } from './types.js';
import { measuredStream } from '../telemetry/agent-spans.js';
import type { UsageStore } from '../usage/usage-store.js';
import { endsRun } from '../stream/run-end.js';

/** Poll interval for results of workflows running elsewhere, and for "is the run waiting for a human?". */
const RESULT_POLL_MS = 100;
/** How long a handle whose workflow was cancelled waits for the run's abort record (abort() writes it after the cancel). */
const ABORT_RECORD_WAIT_MS = 5_000;
const ABORT_RECORD_POLL_MS = 20;
/**
 * A run this process started: the store is read when a step of this process signals the run (or its root session)
 * changed, and otherwise only this often, for what another process may record (an abort while a tool ignores it).
 */
const LOCAL_SAFETY_CHECK_MS = 5_000;

/** Executor operations a handle delegates to (injected, so a handle holds no executor reference). */
export interface HandleCallbacks {
  send(input: string | { message: string; state?: Record<string, unknown> }): Promise<AgentExecutionHandle<any>>;
  resume(options?: ResumeOptions): Promise<AgentExecutionHandle<any>>;
  retry(options?: RetryOptions): Promise<AgentExecutionHandle<any>>;
  interrupt(reason?: string): Promise<void>;
  abort(reason?: string): Promise<void>;
}

/** What a handle needs from its executor. */
export interface HandleContext {
  stateStore: SessionStateStore;
  streamManager: StreamManager;
  streamId: string;
  startSequence: number;
  callbacks: HandleCallbacks;
  /** Fills `usage` of a result that has none (`getHandle(..., { usageStore })`). */
  usageStore?: UsageStore;
  /** The live DBOS handle when this process started the workflow (awaits its promise instead of polling). */
  liveHandle?: WorkflowHandle<unknown>;
  /**
   * For a run this process started: its run's and session's signals since before its workflow started. Until one
   * comes, the run has not ended, been aborted or begun waiting for a human here, so the first `result()` need not
   * read the store to find out (a read that would compete with the run's own first steps).
   */
  signalsSinceStart?: RunChangeWatch;
}

/** What `outcome()` learnt from the run's final result: its value, or its error thrown. */
function settledOutcome<T>(settled: { value: T } | { error: unknown }): T {
  if ('error' in settled) throw settled.error;
  return settled.value;
}

function noOutcome(): undefined {
  return undefined;
}

/** @internal The handle of one standard-mode run. */
export class DBOSAgentHandle<TOutput> implements AgentExecutionHandle<TOutput> {
  constructor(
    readonly sessionId: string,
    readonly runId: string,
    readonly workflowId: string,
    private readonly context: HandleContext,
  ) {
    this.unreadSignals = context.signalsSinceStart;
  }

  /** The start's watch until the first `outcome()` consumes it. */
  private unreadSignals: RunChangeWatch | undefined;

  async *stream(): AsyncIterable<StreamChunk> {
    const reader = await this.context.streamManager.createReader(this.context.streamId, this.context.startSequence);
    try {
      for await (const chunk of measuredStream(reader)) {
        yield chunk;
        if (endsRun(chunk, this.sessionId)) return;
      }
    } finally {
      await reader.close();
    }
  }

  /** The stream sequence this run started after. */
  get startSequence(): number {
    return this.context.startSequence;
  }

  /**
   * The run's outcome: its final result, or — as soon as it waits for client tool results or approvals — a
   * `suspended_client_tool` result (the run stays warm; submit, then await `getHandle(...).result()` again).
   */
  async result(): Promise<AgentResult<TOutput>> {
    if (DBOS.isInStep()) throw new DBOSStepContextError('result');
    const result = DBOS.isInWorkflow() ? await this.durableOutcome() : await this.outcome();
    const { usageStore } = this.context;
    if (result.usage !== undefined || usageStore === undefined) return result;
    return { ...result, usage: await usageStore.getRunUsage(this.sessionId, this.runId) };
  }

  private async outcome(): Promise<AgentResult<TOutput>> {
    // A local run awaits its DBOS handle and this process's run signals (the store is read once now, then on a signal
    // but its end's); a run elsewhere, the process's shared status watch (its end) and its store's shared check of the
    // watched runs (now, then once a second: remote-looks.ts), read on its own only when that check names it.
    const local = this.context.liveHandle !== undefined;
    const final = this.finalResult(local);
    final.catch(() => undefined);
    let settled: { value: AgentResult<TOutput> } | { error: unknown } | undefined;
    final.then(
      (value) => (settled = { value }),
      (error: unknown) => (settled = { error }),
    );
    for (let first = true; ; first = false) {
      const stop = new AbortController();
      // A queued run may still run in this process: its signals wake the wait on either path.
      const keys = [this.runId, sessionSignal(this.sessionId)];
      const wait = local
        ? waitForRunChange(keys, LOCAL_SAFETY_CHECK_MS, stop.signal)
        : remoteRunChange(this.context.stateStore, this, keys, first, stop.signal);
      const seen = first && local ? this.firstSignals() : 'wait';
      if (seen === 'look') {
        const waiting = await this.waitingResult();
        if (waiting !== undefined && settled === undefined) {
          stop.abort();
          return waiting;
        }
      }
      const change = seen === 'ended' ? 'ended' : await Promise.race([final.then(noOutcome, noOutcome), wait]);
      stop.abort();
      if (settled !== undefined) return settledOutcome(settled);
      // Its finish committed here: no human wait to look for; DBOS records the workflow's end right after.
      if (change === 'ended') return final;
      // Woken: look at the store, unless the result comes first (a run's end signals before DBOS records its result).
      const look = this.waitingResult();
      look.catch(() => undefined); // a failure after the result came is of no use
      const waiting = await Promise.race([look, final.then(noOutcome, noOutcome)]);
      if (settled !== undefined) return settledOutcome(settled);
      if (waiting !== undefined) return waiting;
    }
  }

  /**
   * What the first look of `outcome()` does: read the store, always, except for the first `result()` of a run this
   * process started when no signal of it came since (the wait registered before this call catches later ones), or
   * when the run's finish committed here since (`ended`).
   */
  private firstSignals(): 'look' | 'wait' | 'ended' {
    const watch = this.unreadSignals;
    this.unreadSignals = undefined;
    watch?.release();
    if (watch === undefined) return 'look';
    return watch.ended ? 'ended' : watch.changed ? 'look' : 'wait';
  }

  async getState(): Promise<SessionState | null> {
    return this.context.stateStore.loadState(this.sessionId);
  }

  async canResume(): Promise<boolean> {
    const state = await this.getState();
    if (state === null || state.failureReason === 'aborted' || state.status === 'failed' || state.status === 'completed') return false;
    return state.status === 'interrupted' || state.status === 'paused' || Object.keys(state.pendingClientToolCalls ?? {}).length > 0;
  }

  async send(input: string | { message: string; state?: Record<string, unknown> }): Promise<AgentExecutionHandle<TOutput>> {
    return this.context.callbacks.send(input) as Promise<AgentExecutionHandle<TOutput>>;
  }

  async resume(options?: ResumeOptions): Promise<AgentExecutionHandle<TOutput>> {
    return this.context.callbacks.resume(options) as Promise<AgentExecutionHandle<TOutput>>;
  }

  async retry(options?: RetryOptions): Promise<AgentExecutionHandle<TOutput>> {
    return this.context.callbacks.retry(options) as Promise<AgentExecutionHandle<TOutput>>;
  }

  async interrupt(reason?: string): Promise<void> {
    await this.context.callbacks.interrupt(reason);
  }

  async abort(reason?: string): Promise<void> {
    await this.context.callbacks.abort(reason);
  }

  private async finalResult(local: boolean): Promise<AgentResult<TOutput>> {
    try {
      if (this.context.liveHandle !== undefined) {
        try {
          return (await this.context.liveHandle.getResult()) as AgentResult<TOutput>;
        } catch (error) {
          // Another process took the workflow over (rolling deploy): its recorded outcome is the result.
          if (!isDBOSControlError(error)) throw error;
        }
      }
      for (;;) {
        if ((await DBOS.getWorkflowStatus(this.workflowId)) !== null) break;
        // The DBOS record is gone (reset or garbage-collected): the run record answers for a run that ended;
        // a run left `running` is repaired to `failed` once it is old enough, so the advised retry() works.
        const recorded = await this.recordedResult();
        if (recorded !== undefined) return recorded;
        const { stateStore, streamManager } = this.context;
        if (await repairStuckRun(stateStore, streamManager, this.sessionId, { missingAfterMs: MISSING_WORKFLOW_AFTER_MS })) {
          throw new DBOSWorkflowNotFoundError(this.workflowId);
        }
        await new Promise((resolve) => setTimeout(resolve, RESULT_POLL_MS));
      }
      if (!local) return await awaitRemoteResult<AgentResult<TOutput>>(this.workflowId, this.endHint());
      return await DBOS.retrieveWorkflow<AgentResult<TOutput>>(this.workflowId).getResult({ pollingIntervalMs: RESULT_POLL_MS });
    } catch (error) {
      const aborted = await this.abortedResult();
      if (aborted !== undefined) return aborted;
      throw error;
    }
  }

  /** The run's stream's end, as a hint that its workflow ended (when the stream manager gives one). */
  private endHint(): EndHint | undefined {
    const { streamManager, streamId } = this.context;
    return streamManager.onStreamEnd === undefined ? undefined : (wake) => streamManager.onStreamEnd!(streamId, wake);
  }

  /**
   * Inside a user's workflow body: one durable wait on the run's workflow (DBOS records its outcome, so a
   * recovered caller replays it). No early `suspended_client_tool` answer here: the run's own outcome only.
   */
  private async durableOutcome(): Promise<AgentResult<TOutput>> {
    try {
      return await DBOS.retrieveWorkflow<AgentResult<TOutput>>(this.workflowId).getResult();
    } catch (error) {
      const aborted = await this.abortedResult();
      if (aborted !== undefined) return aborted;
      throw error;
    }
  }

  /** The outcome the run record holds for an ended run (its output from the session while it is the latest run). */
  private async recordedResult(): Promise<AgentResult<TOutput> | undefined> {
    const { stateStore } = this.context;
    const run = await stateStore.getRun(this.sessionId, this.runId);
    if (run === null || run.status === 'running') return undefined;
    if (run.status === 'aborted') return abortedResultOf<TOutput>(this, run);
    const state = run.status === 'completed' ? await stateStore.loadState(this.sessionId) : null;
    const latest = (await stateStore.getCurrentRun(this.sessionId))?.runId === this.runId;
    const output = latest && state?.output !== undefined && state.output !== null ? { output: state.output as TOutput } : {};
    return {
      sessionId: this.sessionId,
      runId: this.runId,
      status: run.status === 'completed' || run.status === 'failed' || run.status === 'interrupted' ? run.status : 'suspended_client_tool',
      completionReason: run.completionReason ?? (run.status === 'completed' ? 'text_response' : run.status === 'failed' ? 'failed' : run.status === 'interrupted' ? 'interrupted' : 'suspended'),
      stepCount: run.stepCount,
      ...output,
      ...(run.error === undefined ? {} : { error: run.error }),
    };
  }

  /**
   * The result of a run cancelled by abort(). abort() cancels the workflow first and records the run (with its
   * reason) right after, so a cancelled workflow whose run does not read `aborted` yet is waited for, briefly.
   */
  private async abortedResult(): Promise<AgentResult<TOutput> | undefined> {
    const status = await DBOS.getWorkflowStatus(this.workflowId);
    if (status?.status !== 'CANCELLED') return undefined;
    const deadline = Date.now() + ABORT_RECORD_WAIT_MS;
    let run = await this.context.stateStore.getRun(this.sessionId, this.runId);
    while (run !== null && run.status !== 'aborted' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, ABORT_RECORD_POLL_MS));
      run = await this.context.stateStore.getRun(this.sessionId, this.runId);
    }
    return abortedResultOf<TOutput>(this, run);
  }

  /**
   * An outcome before the workflow returns: `aborted` as soon as abort() recorded it (the cancelled workflow
   * may still be inside a slow tool or LLM call), or a suspended result while this run waits for a human.
   */
  private async waitingResult(): Promise<AgentResult<TOutput> | undefined> {
    const run = await this.context.stateStore.getRun(this.sessionId, this.runId);
    if (run?.status === 'aborted') return abortedResultOf<TOutput>(this, run);
    return run?.status === 'running' ? storedWaitingResult<TOutput>(this.context.stateStore, run) : undefined;
  }
}
