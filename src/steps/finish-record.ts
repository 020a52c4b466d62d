import { joining, type StepRecord } from '../journal/step-record.js';
import { checkpointIdFor } from '../orchestration/ids.js';
import type { StateStoreStepRecords, StepCommitOnConnection } from '../store/step-records.js';
import type { StreamManagerStepRecords } from '../stream/step-records.js';
import type { StreamInfo } from '../types/stream.js';
import type { RunPatch } from '../store/record-updates.js';
import type { CompletionReason, RunStatus, SessionStateWrite } from '../types/session.js';
import { emitRejectedCalls, type PendingStepCommit } from './commit.step.js';
import { signalRunChanged } from './run-signals.js';
import type { RunScope, StepEnvironment } from './step-scope.js';
import { releaseStreamWriter } from './stream-writers.js';

/**
 * What a root run's finish writes, decided by `FinishRunStep` (the same on either path).
 *
 * @example
 * const writes: FinishWrites = finishWritesOf(input, { current, superseded: false, error: 'Run failed', now: Date.now() });
 */
export interface FinishWrites {
  scope: RunScope & { stepCount: number };
  /** The last step's commit when no later step did it. */
  commit?: PendingStepCommit;
  /** The run's last chunk (output, error or run_interrupted), when it has one. */
  finalChunk?: Parameters<StepEnvironment['emitter']['emit']>[0];
  /** What the stream ends with. */
  output?: unknown;
  session: SessionStateWrite;
  run: RunStatus;
  runPatch: RunPatch;
}

/** What `finishWritesOf` needs of `FinishRunStep`'s input. */
interface FinishInput extends RunScope {
  status: 'completed' | 'failed' | 'interrupted';
  completionReason: CompletionReason;
  output?: unknown;
  error?: string;
  stepCount: number;
  commit?: PendingStepCommit;
}

/**
 * What a run's finish writes (pure): the final chunk, the session's outcome and the run's record (its own output
 * kept with it, unless a newer run superseded it: a later turn overwrites the session's output).
 *
 * @example
 * const writes = finishWritesOf(input, { current, superseded: false, error: 'Run failed', now: Date.now() });
 */
export function finishWritesOf(
  input: FinishInput,
  { current, superseded, error, now }: { current: { metadata?: Record<string, unknown> } | null; superseded: boolean; error: string; now: number },
): FinishWrites {
  const { status } = input;
  const interruptContext = {
    interruptedAt: now,
    runId: input.runId,
    stepCount: input.stepCount,
    ...(input.error === undefined ? {} : { reason: input.error }),
  };
  const session: SessionStateWrite =
    status === 'completed'
      ? { status, output: input.output ?? null, stepCount: input.stepCount }
      : status === 'failed'
        ? { status, error, stepCount: input.stepCount }
        : { status, interruptContext };
  const finalChunk: FinishWrites['finalChunk'] =
    status === 'completed'
      ? input.output === undefined
        ? undefined
        : { type: 'output', output: input.output }
      : status === 'failed'
        ? { type: 'error', error, recoverable: false }
        : { type: 'run_interrupted', runId: input.runId, ...(input.error === undefined ? {} : { reason: input.error }) };
  const runPatch: RunPatch = {
    stepCount: input.stepCount,
    completionReason: input.completionReason,
    endedAt: now,
    ...(input.error === undefined ? {} : { error: input.error }),
    ...(input.output === undefined || superseded ? {} : { metadata: { ...(current?.metadata ?? {}), output: input.output } }),
  };
  return {
    scope: input,
    ...(input.commit === undefined ? {} : { commit: input.commit }),
    ...(finalChunk === undefined ? {} : { finalChunk }),
    output: input.output,
    session,
    run: status,
    runPatch,
  };
}

/** The store and stream manager capabilities a finish in the record uses (both joined the record). */
interface Joined {
  state: StateStoreStepRecords;
  stream: StreamManagerStepRecords;
}

/**
 * Whether a run's finish commits with its step's record (one transaction, no write of its own): a root run whose state
 * store and stream manager both join the record, whose stream is still active (else another execution ended it, and the
 * separate path tolerates that), with no hook that must see the outcome committed when it fires (onAgentComplete,
 * onAgentFail; onMessage and afterTool when the last step's commit is due), and not a failed run with a commit due (its
 * outcome is recorded even when that commit fails again). `streamRead`: the stream's status read already under way.
 *
 * @example
 * const joined = await finishJoinsRecord(record, environment, { parent, status, commit, streamId });
 */
export async function finishJoinsRecord(
  record: StepRecord,
  { dependencies, hooks }: Pick<StepEnvironment, 'dependencies' | 'hooks'>,
  input: { parent?: unknown; status: string; commit?: PendingStepCommit; streamId: string },
  streamRead?: Promise<StreamInfo | null>,
): Promise<Joined | undefined> {
  if (!finishMayJoinRecord(hooks, input)) return undefined;
  const { stateStore, streamManager } = dependencies;
  const state = await joining(record, stateStore.stepRecords);
  const stream = state === undefined ? undefined : await joining(record, streamManager.stepRecords);
  if (state === undefined || stream === undefined) return undefined;
  return (await (streamRead ?? streamManager.getInfo(input.streamId)))?.status === 'active' ? { state, stream } : undefined;
}

/**
 * What {@link finishJoinsRecord} decides without I/O: a root run, no hook that must see the outcome committed when it
 * fires, not a failed run with a commit due. When false, the finish needs neither its stores' verdicts nor its stream.
 *
 * @example
 * const streamRead = finishMayJoinRecord(hooks, input) ? streamManager.getInfo(input.streamId) : undefined;
 */
export function finishMayJoinRecord(
  hooks: Pick<StepEnvironment['hooks'], 'hasHooks'>,
  input: { parent?: unknown; status: string; commit?: PendingStepCommit },
): boolean {
  if (input.parent !== undefined || hooks.hasHooks('onAgentComplete') || hooks.hasHooks('onAgentFail')) return false;
  return input.commit === undefined || !(input.status === 'failed' || hooks.hasHooks('onMessage') || hooks.hasHooks('afterTool'));
}

/**
 * The finish's writes handed to the step's record, in the order the separate path writes them: the last step's commit,
 * its rejected calls' chunks and the final chunk, the stream's end, the session's outcome, the run's record last. Once
 * the record commits, this process's writers know the stream ended, the writer is released and `result()` waiters are
 * woken, told the run ended (they need not look for a human wait).
 *
 * @example
 * deferFinish(record, environment, joined, writes);
 */
export async function deferFinish(record: StepRecord, { emitter }: Pick<StepEnvironment, 'emitter'>, joined: Joined, writes: FinishWrites): Promise<void> {
  const { scope, commit } = writes;
  let sessionWritten = false;
  if (commit !== undefined) {
    await emitRejectedCalls(emitter.forStep(commit.step), commit.rejectedCalls);
    const meta = { checkpointId: checkpointIdFor(scope.runId, commit.step), runId: scope.runId, stepCount: commit.step };
    let onCommitted: StepCommitOnConnection['onCommitted'];
    record.defer({
      within: async (connection) => {
        // The session's outcome goes with the step's commit (one write of the row, no read of its own), unless that
        // commit was done already and wrote nothing (its report then shows the row without the outcome).
        const done = await joined.state.commitStepOn(connection, scope.sessionId, { stepCount: commit.step, ...writes.session }, commit.messages, meta);
        ({ onCommitted } = done);
        sessionWritten = done.report.state.status === writes.session.status;
      },
      committed: (outcome) => onCommitted?.(outcome),
    });
  }
  if (writes.finalChunk !== undefined) await emitter.emit(writes.finalChunk);
  await emitter.flushWith(record);
  let ended: { onCommitted(): void } | undefined;
  record.defer({
    within: async (connection) => {
      ended = await joined.stream.endStreamOn(connection, scope.streamId, writes.output);
      if (!sessionWritten) await joined.state.saveStateOn(connection, scope.sessionId, writes.session);
      await joined.state.updateRunStatusOn(connection, scope.sessionId, scope.runId, writes.run, writes.runPatch);
    },
    committed: () => {
      ended?.onCommitted();
      void releaseStreamWriter(scope.streamId, scope.sessionId);
      signalRunChanged(scope.runId, 'ended');
    },
  });
}
