import { DBOS } from '@dbos-inc/dbos-sdk';
import { beginReads, beginRun, type BeginReads, type BeginRunInput } from './begin-run.js';
import { dropFirstStepReads } from './first-step-reads.js';
import { StreamError, boundedMessage } from '../errors/index.js';
import type { ParentLink } from '../orchestration/workflow-input.js';
import { childOutcomeOf, refStatusOf } from '../orchestration/sub-agents.js';
import type { StreamManager } from '../stream/stream-manager.js';
import type { AgentResult } from '../types/result.js';
import { ChunkEmitter, chunkKey } from './stream-writers.js';
import type { CompletionReason } from '../types/session.js';
import type { SessionStateStore } from '../store/state-store.js';
import { forgetHistory } from './history-cache.js';
import { runJournaledStep } from '../journal/journal.js';
import { runtimeDependencies, workflowHookManagers, workflowUsageStores } from './runtime-registry.js';
import { commitStepWith, type PendingStepCommit } from './commit.step.js';
import { describeError, hookIdentity, modelKeyOf, stepEnvironment, turnKeyOf, type RunScope, type StepEnvironment } from './step-scope.js';
import { signalRunChanged } from './run-signals.js';
import { forgetWorkflow, markWorkflowStartedHere } from './stream-reset-tracker.js';
import { releaseStreamWriter } from './stream-writers.js';
import { reopenResumedRun } from './reopen-run.js';
import { deferFinish, finishJoinsRecord, finishMayJoinRecord, finishWritesOf, type FinishWrites } from './finish-record.js';
import { takeFinishReads } from './finish-reads.js';
import { atRunBoundary } from './run-boundary-probe.js';
import { emitRunEnded } from './run-telemetry.js';

export type { BeginRunInput } from './begin-run.js';

/** Input of `RunLifecycleStep.finish`. */
export interface FinishRunInput extends RunScope {
  status: 'completed' | 'failed' | 'interrupted';
  completionReason: CompletionReason;
  output?: unknown;
  error?: string;
  stepCount: number;
  /** Set for a sub-agent run: report to the parent's ref and stream, never end the shared stream. */
  parent?: ParentLink;
  /** The last step's commit when no later step did it: done first (idempotent by checkpoint id). */
  commit?: PendingStepCommit;
}

/**
 * Durable run boundaries: `begin` appends the turn's input (healing a dangling `__finish__` call first) and
 * fires onAgentStart; `finish` writes the session and run outcome, streams the terminal chunk, ends the
 * stream, fires onAgentComplete/onAgentFail and returns the AgentResult.
 */
export class RunLifecycleStep {
  /**
   * `withNextStep`: the workflow's next DBOS operation is a journaled step (the run's first LLM call), which may then
   * record this begin with its own record when it wrote nothing (a begin whose start stored the turn).
   */
  static begin(
    input: BeginRunInput,
    options: { withNextStep?: boolean; queued?: boolean } = {},
  ): Promise<{ stepCount: number; aborted?: true }> {
    const firstStepNext = options.withNextStep === true;
    // A queued run's begin whose record rides with its first LLM step's decides from its stream whether that step resets.
    const checkStream = firstStepNext && options.queued === true;
    let ahead: Promise<BeginReads> | undefined;
    // The begin's reads go out beside the journal's look for its recorded outcome; a replayed begin drops them.
    const readAhead = () => {
      const reads = beginReads(input, firstStepNext, undefined, checkStream);
      reads.catch(() => undefined); // awaited by the body, or dropped
      ahead = reads;
      return () => void reads.then((begun) => begun.readsAhead && dropFirstStepReads(input.runId), () => undefined);
    };
    return runJournaledStep(
      'BeginRunStep',
      (record) => {
        // A begin recorded on its own runs (is not replayed) only before the run's first LLM step: no partial chunk of
        // an earlier attempt can follow, wherever the workflow started. One whose record rides with that step's runs
        // again after a crash during the step, whose text may be partly stored: a run started in place is reset by
        // that step (the launch marked it started here); a queued run is marked here when its stream holds none of
        // its chunks (beginReads), else that step resets it.
        if (!firstStepNext) markWorkflowStartedHere(turnKeyOf(input));
        return beginRun(input, undefined, record, { firstStepNext, checkStream, ...(ahead === undefined ? {} : { ahead }) });
      },
      // An aborted run's workflow ends after its begin: nothing would record it.
      firstStepNext ? { recordWithNext: (begun) => (begun as { aborted?: true }).aborted !== true, readAhead } : { readAhead },
    );
  }

  /** Durable {@link abandonRun}. */
  @DBOS.step({ name: 'AbandonRunStep' })
  static async abandon(input: RunScope & { error: string; parent?: ParentLink }): Promise<AgentResult> {
    return abandonRun(input);
  }

  static finish(given: FinishRunInput, { endsWorkflow = false }: { endsWorkflow?: boolean } = {}): Promise<AgentResult> {
    // A failed run's error is stored, streamed and served: bounded and redacted once more, whatever produced it.
    const input = given.status === 'failed' && given.error !== undefined ? { ...given, error: boundedMessage(given.error) } : given;
    return runJournaledStep('FinishRunStep', async (record) => {
      // The first live step of a resumed execution reopens a run a DBOS cancel recorded aborted.
      await reopenResumedRun(record, input);
      const environment = await stepEnvironment(input, input.stepCount);
      const { dependencies, hooks } = environment;
      const { stateStore, usageStore } = dependencies;
      // The stream's status (whether the finish may join the record) is read beside the current run, when it may; the
      // answering LLM step of this process started both reads while it recorded itself.
      const early = record.firstLiveAfterReplay === true ? undefined : takeFinishReads(stateStore, input.runId, input.stepCount);
      const mayJoin = finishMayJoinRecord(hooks, input);
      const streamRead = mayJoin ? (early?.stream ?? dependencies.streamManager.getInfo(input.streamId)) : undefined;
      streamRead?.catch(() => undefined);
      // A replay of this step after a newer run started (crash after the status write) must not touch the
      // session or its stream: they belong to that run now.
      const current = await (early?.current ?? stateStore.getCurrentRun(input.sessionId));
      const superseded = current !== null && current.runId !== input.runId;
      const writes = finishWritesOf(input, { current, superseded, error: input.error ?? 'Run failed', now: Date.now() });
      const joined = superseded ? undefined : await finishJoinsRecord(record, environment, input, streamRead);
      if (joined === undefined) await finishSeparately(environment, input, writes, superseded);
      else await deferFinish(record, environment, joined, writes);
      await atRunBoundary('finish_deferred', input.sessionId);
      if (!superseded) {
        const modelKey = modelKeyOf(environment);
        const ending = {
          status: input.status,
          completionReason: input.completionReason,
          stepCount: input.stepCount,
          run: current,
          ...(modelKey === undefined ? {} : { modelKey }),
        };
        await emitRunEnded(stateStore, input, {
          ...ending,
          ...(input.error === undefined ? {} : { error: input.error }),
          ...(input.parent === undefined ? {} : { parent: input.parent }),
        });
      }
      if (input.status === 'completed') {
        await hooks.fire('onAgentComplete', {
          ...hookIdentity(input),
          output: input.output,
          completionReason: input.completionReason,
          stepCount: input.stepCount,
        });
      } else if (input.status === 'failed') {
        await hooks.fire('onAgentFail', {
          ...hookIdentity(input),
          error: input.error ?? 'Run failed',
          completionReason: input.completionReason,
          stepCount: input.stepCount,
        });
      }
      workflowHookManagers.unregister(turnKeyOf(input));
      forgetWorkflow(turnKeyOf(input));
      forgetHistory(input.sessionId);
      const usage = usageStore === undefined ? undefined : await usageStore.getRunUsage(input.sessionId, input.runId);
      workflowUsageStores.delete(input.workflowId);
      return {
        sessionId: input.sessionId,
        runId: input.runId,
        status: input.status,
        completionReason: input.completionReason,
        stepCount: input.stepCount,
        ...(input.output === undefined ? {} : { output: input.output }),
        ...(input.error === undefined ? {} : { error: input.error }),
        ...(usage === undefined ? {} : { usage }),
      };
    }, { endsWorkflow });
  }
}

/**
 * The last step's commit, done by the finish step. A run that failed still records its outcome when the commit
 * fails again (its error is logged); any other run's commit failure fails this step, as a CommitStep's would.
 */
async function commitLastStep(environment: StepEnvironment, input: FinishRunInput, commit: PendingStepCommit): Promise<void> {
  try {
    await commitStepWith(environment, { ...input, ...commit, returnState: false });
  } catch (error) {
    if (input.status !== 'failed') throw error;
    environment.dependencies.logger.warn('commit.failed_at_finish', {
      sessionId: input.sessionId,
      runId: input.runId,
      step: commit.step,
      error: describeError(error),
    });
  }
}

/**
 * End a run that cannot start (its agent never registered in this process): run and session `failed`, an error
 * chunk, the stream ended (a sub-agent reports to its parent instead). Needs no agent definition.
 *
 * @example
 * await RunLifecycleStep.abandon({ ...scope, error: describeError(error) });
 */
export async function abandonRun(given: RunScope & { error: string; parent?: ParentLink }): Promise<AgentResult> {
  const input = { ...given, error: boundedMessage(given.error) };
  const { stateStore, streamManager } = await runtimeDependencies();
  const run = await stateStore.getRun(input.sessionId, input.runId);
  if (run !== null && run.status !== 'running') {
    const aborted = run.status === 'aborted';
    return {
      sessionId: input.sessionId,
      runId: input.runId,
      status: aborted ? 'aborted' : 'failed',
      completionReason: aborted ? 'aborted' : 'failed',
      stepCount: run.stepCount,
    };
  }
  const emitter = new ChunkEmitter(streamManager, input.streamId, input.sessionId, input.agentType, 0);
  await emitter.emit({ type: 'error', error: input.error, recoverable: false });
  await emitter.flush();
  await releaseStreamWriter(input.streamId, input.sessionId);
  if (input.parent === undefined) await streamManager.endStream(input.streamId);
  else await reportToParent(stateStore, streamManager, { ...input, status: 'failed', completionReason: 'failed', stepCount: 0 });
  await stateStore.saveState(input.sessionId, { status: 'failed', error: input.error });
  await stateStore.updateRunStatus(input.sessionId, input.runId, 'failed', {
    completionReason: 'failed',
    endedAt: Date.now(),
    error: input.error,
    stepCount: 0,
  });
  workflowHookManagers.unregister(input.workflowId);
  return { sessionId: input.sessionId, runId: input.runId, status: 'failed', completionReason: 'failed', stepCount: 0, error: input.error };
}

/** Healed calls no longer wait for a client: drop their pending entries (a late submission gets `already_completed`). */
/**
 * A sub-agent run ended: update the parent's ref and write `subagent_end` under the parent's identity, after the
 * child's own last chunk. The shared stream stays open (the reference's skipStreamClose).
 */
async function reportToParent(stateStore: SessionStateStore, streamManager: StreamManager, input: FinishRunInput): Promise<void> {
  const parent = input.parent;
  if (parent === undefined) return;
  const outcome = childOutcomeOf({ status: input.status, output: input.output, ...(input.error === undefined ? {} : { error: input.error }) });
  await stateStore.updateSubSessionRef(parent.sessionId, input.sessionId, {
    status: refStatusOf(outcome),
    ...(outcome.kind === 'result' ? { output: outcome.output } : {}),
    ...(outcome.kind === 'error' ? { error: outcome.error } : {}),
  });
  if (outcome.kind === 'interrupted') return;
  const emitter = new ChunkEmitter(streamManager, input.streamId, parent.sessionId, parent.agentType, parent.step);
  // Keyed by the child run: a finish step re-run after a crash does not announce the end twice.
  await emitter.emit(
    {
      type: 'subagent_end',
      subAgentType: input.agentType,
      subSessionId: input.sessionId,
      callId: parent.callId,
      result: outcome.kind === 'result' ? outcome.output : { error: outcome.kind === 'error' ? outcome.error : 'interrupted' },
    },
    { key: chunkKey(input, 'subagent_end', parent.callId) },
  );
  await emitter.flush();
}

/**
 * The finish on its own writes (a sub-agent, a store or stream manager that does not join the record, a hook that must
 * see the outcome committed): the last step's commit, the final chunk, the stream's end (before the session status
 * changes: that status is what lets the next turn start from any process and reactivate the stream, which this step
 * must not end afterwards), the session's outcome, the run's record last (whoever sees the run ended also sees the
 * session's outcome).
 */
async function finishSeparately(environment: StepEnvironment, input: FinishRunInput, writes: FinishWrites, superseded: boolean): Promise<void> {
  const { dependencies, emitter } = environment;
  const { stateStore, streamManager } = dependencies;
  if (!superseded && input.commit !== undefined) await commitLastStep(environment, input, input.commit);
  if (!superseded) await emitFinalChunk(emitter, input, writes.finalChunk, dependencies.logger);
  await releaseStreamWriter(input.streamId, input.sessionId);
  if (!superseded) {
    if (input.parent === undefined) await streamManager.endStream(input.streamId, input.output);
    else await reportToParent(stateStore, streamManager, input);
    await stateStore.saveState(input.sessionId, writes.session);
  }
  await stateStore.updateRunStatus(input.sessionId, input.runId, writes.run, writes.runPatch);
  signalRunChanged(input.runId);
}

/**
 * The run's last chunk (output, error or run_interrupted). A stream already ended means another execution of this
 * run finished it (a process that lost its workflow to recovery during a rolling deploy): nothing more to write.
 */
async function emitFinalChunk(
  emitter: StepEnvironment['emitter'],
  input: FinishRunInput,
  chunk: FinishWrites['finalChunk'],
  logger: StepEnvironment['dependencies']['logger'],
): Promise<void> {
  try {
    if (chunk !== undefined) await emitter.emit(chunk);
    await emitter.flush();
  } catch (caught) {
    if (!StreamError.isInstance(caught) || caught.code !== 'STREAM_CLOSED') throw caught;
    logger.warn('run.finish_stream_ended', { sessionId: input.sessionId, runId: input.runId });
  }
}
