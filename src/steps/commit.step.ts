import { DBOS } from '@dbos-inc/dbos-sdk';
import type { SessionStateStore } from '../store/state-store.js';
import type { Message } from '../types/message.js';
import type { CheckpointMeta, SessionStateWrite } from '../types/session.js';
import type { StepCommitReport } from '../types/step-commit-report.js';
import { updateSessionWithRetry } from '../store/update-session-with-retry.js';
import { markCallsCompleted } from '../orchestration/hitl-decisions.js';
import { checkpointIdFor } from '../orchestration/ids.js';
import type { ToolOutcome } from './execute-tool.step.js';
import { fireMessageHooks } from './message-hooks.js';
import { stepEnvironment, type RunScope, type StepEnvironment } from './step-scope.js';

/** A tool call answered without running (unknown tool, invalid arguments, …): streamed as a failed tool_end. */
export interface RejectedToolCall {
  toolCallId: string;
  toolName: string;
  error: string;
}

/** Input of `CommitStep.commit`. */
export interface CommitStepInput extends RunScope {
  step: number;
  /** The step's messages in conversation order: assistant message, then results by call index. */
  messages: Message[];
  /** Server tool outcomes whose onMessage/afterTool hooks fire after the commit, in call order. */
  toolOutcomes: ToolOutcome[];
  rejectedCalls: RejectedToolCall[];
  /** Return the committed custom state (only when the agent has a `stopWhen`). */
  returnState: boolean;
  /** Human-answered calls settled by this commit: their pending entries go, atomically with their results. */
  settledHitl?: { toolCallIds: string[]; expired: string[]; rootSessionId: string };
}

/** Output of `CommitStep.commit`. */
export interface CommitStepOutput {
  version: number;
  customState?: Record<string, unknown>;
}

/**
 * A step's commit that a later step performs (the next `CallLLMStep`, or `FinishRunStep` when the run stops):
 * what `CommitStep.commit` takes besides the run scope. Idempotent by checkpoint id `${runId}:${step}`.
 *
 * @example
 * const pending: PendingStepCommit = { step: 3, messages, toolOutcomes, rejectedCalls: [] };
 */
export type PendingStepCommit = Pick<CommitStepInput, 'step' | 'messages' | 'toolOutcomes' | 'rejectedCalls'>;

/** What {@link commitStepWith} did: the new version, and the store's report when it gives one. */
export interface StepCommitResult extends CommitStepOutput {
  report?: StepCommitReport;
}

/**
 * The step boundary: one atomic store transaction appends the step's messages (idempotent by id), promotes
 * the tools' staged state writes, writes checkpoint `${runId}:${step}` and bumps the version. Then fires
 * onMessage for every message and afterTool for every server tool, in call order.
 */
export class CommitStep {
  @DBOS.step({ name: 'CommitStep' })
  static async commit(input: CommitStepInput): Promise<CommitStepOutput> {
    const { report: _report, ...output } = await commitStepWith(await stepEnvironment(input, input.step), input);
    return output;
  }
}

/**
 * The body of a step commit inside any step (`CommitStep`, or the step after it, which commits it first): rejected
 * calls' chunks, the store commit, then onMessage/afterTool. Re-running it for an existing checkpoint writes
 * nothing again (hooks fire again, as for any re-run step).
 *
 * @example
 * const { report } = await commitStepWith(environment, { ...scope, ...pending, returnState: false });
 */
export async function commitStepWith(environment: StepEnvironment, input: CommitStepInput): Promise<StepCommitResult> {
  const { dependencies, hooks } = environment;
  const emitter = environment.emitter.forStep(input.step);
  const { stateStore } = dependencies;
  const checkpointId = checkpointIdFor(input.runId, input.step);
  await emitRejectedCalls(emitter, input.rejectedCalls);
  if (input.rejectedCalls.length > 0) await emitter.flush();
  const meta = { checkpointId, runId: input.runId, stepCount: input.step };
  let newVersion: number;
  let report: StepCommitReport | undefined;
  const settled = input.settledHitl;
  if (settled === undefined) {
    ({ newVersion, report } = await stateStore.saveStateAndPromoteStaging(input.sessionId, { stepCount: input.step }, input.messages, meta));
  } else {
    newVersion = await commitSettlingPending(stateStore, input, settled, meta);
    if (settled.rootSessionId !== input.sessionId && settled.expired.length > 0) {
      const now = Date.now();
      await updateSessionWithRetry(stateStore, settled.rootSessionId, (root) => ({
        write: { completedClientToolCalls: markCallsCompleted(root.completedClientToolCalls, settled.expired, now) },
        value: undefined,
      }));
    }
  }

  await fireMessageHooks(hooks, input, input.messages, input.toolOutcomes);
  const reported = report === undefined ? {} : { report };
  if (!input.returnState) return { version: newVersion, ...reported };
  const customState = report?.state.customState ?? (await stateStore.loadState(input.sessionId))?.customState ?? {};
  return { version: newVersion, customState, ...reported };
}

/**
 * The chunks of a step's calls answered without running: `tool_start`, then a failed `tool_end`, each (buffered in
 * `emitter`, stamped with the step being committed).
 *
 * @example
 * await emitRejectedCalls(environment.emitter.forStep(commit.step), commit.rejectedCalls);
 */
export async function emitRejectedCalls(emitter: StepEnvironment['emitter'], rejectedCalls: readonly RejectedToolCall[]): Promise<void> {
  for (const rejected of rejectedCalls) {
    await emitter.emit({ type: 'tool_start', toolCallId: rejected.toolCallId, toolName: rejected.toolName, arguments: {} });
    await emitter.emit({ type: 'tool_end', toolCallId: rejected.toolCallId, toolName: rejected.toolName, error: rejected.error });
  }
}

/** The commit, removing the settled pending entries in the same transaction (retried on a lost version race). */
async function commitSettlingPending(
  stateStore: SessionStateStore,
  input: CommitStepInput,
  settled: NonNullable<CommitStepInput['settledHitl']>,
  meta: CheckpointMeta,
): Promise<number> {
  let newVersion = 0;
  const save = async (write: SessionStateWrite, expectedVersion: number): Promise<void> => {
    ({ newVersion } = await stateStore.saveStateAndPromoteStaging(input.sessionId, write, input.messages, meta, { expectedVersion }));
  };
  await updateSessionWithRetry(
    stateStore,
    input.sessionId,
    (state) => {
      const pending = Object.fromEntries(Object.entries(state.pendingClientToolCalls ?? {}).filter(([id]) => !settled.toolCallIds.includes(id)));
      const completed =
        settled.rootSessionId === input.sessionId && settled.expired.length > 0
          ? { completedClientToolCalls: markCallsCompleted(state.completedClientToolCalls, settled.expired, Date.now()) }
          : {};
      const write = { stepCount: input.step, pendingClientToolCalls: pending, suspendedStepId: undefined, suspendedAwaitingChildren: undefined, ...completed };
      return { write, value: undefined };
    },
    { save },
  );
  return newVersion;
}
