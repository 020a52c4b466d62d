import type { AnyAgentConfig } from '../agent/index.js';
import { CompanionStep } from '../steps/companion.step.js';
import { RunLifecycleStep } from '../steps/run-lifecycle.step.js';
import type { BeginRunInput } from '../steps/begin-run.js';
import { describeError, type RunScope } from '../steps/step-scope.js';
import type { AgentResult } from '../types/result.js';
import { isDBOSControlError } from './dbos-control-errors.js';
import { recordOperatorCancel } from '../steps/dbos-cancel.js';
import { dropFirstStepReads, firstStepFollowsBegin } from '../steps/first-step-reads.js';
import { runTurn } from './turn-loop.js';
import { atRunBoundary } from '../steps/run-boundary-probe.js';
import { journalExecution } from '../journal/public-journal.js';
import type { PendingStepCommit } from '../steps/commit.step.js';
import { finished, type AgentWorkflowInput, type TurnContext, type TurnOutcome } from './turn-types.js';
import { abortedResultOf } from '../orchestration/abort-text.js';

/** Options of {@link runRecordedTurn}. */
export interface RecordedTurnOptions {
  /** The run was begun by an earlier step of the workflow (a persistent turn's `openTurn`): no BeginRunStep. */
  begun?: boolean;
  /** The turn's result is the workflow's and nothing follows it (a root run of `helix.runAgent`): see `StepOptions.endsWorkflow`. */
  endsWorkflow?: boolean;
}

/**
 * What a turn's begin appends and writes, from its workflow input: the user message (after a settled parked step's
 * tool results instead when a resume settles one), the initial state, the run it resumes.
 *
 * @example
 * await RunLifecycleStep.begin({ ...scope, ...beginOf(input) });
 */
export function beginOf(
  input: Pick<AgentWorkflowInput, 'userMessage' | 'initialState' | 'resume' | 'turnStored'>,
): Pick<BeginRunInput, 'userMessage' | 'initialState' | 'resumedFrom' | 'turnStored'> {
  // The start stored the turn (a fresh turn's message, step count, state and stream) with its run record.
  if (input.turnStored === true && input.resume === undefined) return { turnStored: true };
  return {
    // A message sent with a resume that settles a parked step goes after that step's tool results.
    ...(input.userMessage === undefined || input.resume?.suspension !== undefined ? {} : { userMessage: input.userMessage }),
    ...(input.initialState === undefined ? {} : { initialState: input.initialState }),
    ...(input.resume === undefined
      ? {}
      : { resumedFrom: { previousRunId: input.resume.previousRunId, settlesSuspension: input.resume.suspension !== undefined } }),
  };
}

/**
 * Workflow-body helper: one recorded turn — BeginRunStep (input message, heals; skipped when `begun`), the turn loop (`runTurn`),
 * then FinishRunStep, or the suspended result of a turn that parked waiting for humans (already recorded). A step that throws fails the turn; DBOS control errors
 * (ownership lost, cancelled) propagate untouched. Shared by standard runs and persistent turns.
 *
 * @example
 * const result = await runRecordedTurn(agent, scope, input);
 */
export function runRecordedTurn(agent: AnyAgentConfig, scope: RunScope, input: AgentWorkflowInput, options: RecordedTurnOptions = {}): Promise<AgentResult> {
  // A standard run's turn is its workflow's whole execution: the public journal tells its first live step after
  // replayed ones so (a resumed cancelled run reopens there, see reopenResumedRun). A persistent turn is one of many.
  if (options.begun === true) return recordedTurn(agent, scope, input, options);
  return journalExecution(() => recordedTurn(agent, scope, input, options));
}

async function recordedTurn(agent: AnyAgentConfig, scope: RunScope, input: AgentWorkflowInput, options: RecordedTurnOptions): Promise<AgentResult> {
  try {
    // Aborted between the run record and this begin: the run stays aborted and nothing runs.
    if (options.begun !== true && (await beginTurn(agent, scope, input)).aborted === true) return abortedResultOf(scope, null);
    return await turnAfterBegin(agent, scope, input, options);
  } finally {
    // What the launch started for the run's first LLM step and no step took (a cancel or crash before it): dropped.
    dropFirstStepReads(scope.runId);
  }
}

/**
 * The run's BeginRunStep. A begin whose start stored the turn writes nothing: its record may ride with the first LLM
 * step's, when that step comes next (companions' ended turns are delivered by a step of DBOS's own between). A cancel
 * that stops it (an operator's, during the first model call made ahead) is recorded as one during the turn is.
 */
async function beginTurn(agent: AnyAgentConfig, scope: RunScope, input: AgentWorkflowInput): Promise<{ aborted?: true }> {
  const withNextStep = firstStepFollowsBegin(input, agent.persistentAgents.length);
  try {
    return await RunLifecycleStep.begin({ ...scope, ...beginOf(input) }, { withNextStep, queued: input.queue !== undefined });
  } catch (error) {
    if (isDBOSControlError(error)) await recordOperatorCancel(scope, input.parent, false);
    throw error;
  }
}

async function turnAfterBegin(
  agent: AnyAgentConfig,
  scope: RunScope,
  input: AgentWorkflowInput,
  options: RecordedTurnOptions,
): Promise<AgentResult> {
  // Companion turns that ended since the parent last heard of them: delivered once, before the first model call.
  if (agent.persistentAgents.length > 0 && input.resume?.suspension === undefined) await CompanionStep.deliver(scope);
  const progress: TurnContext['progress'] = { step: 0 };
  let outcome: TurnOutcome;
  try {
    outcome = await runTurn({ agent, scope, input, progress });
  } catch (error) {
    // Ownership lost (another process runs this workflow now) or cancelled: not this run's failure. A cancel from
    // outside the executor (an operator's `dbos workflow cancel`) is recorded as abort() records one.
    if (isDBOSControlError(error)) await recordOperatorCancel(scope, input.parent, options.begun === true);
    if (isDBOSControlError(error)) throw error;
    outcome = finished('failed', 'failed', progress.step, { error: describeError(error) });
  }
  return recordOutcome(scope, input, outcome, progress.commit, options.endsWorkflow === true);
}

async function recordOutcome(
  scope: RunScope,
  input: AgentWorkflowInput,
  outcome: TurnOutcome,
  commit: PendingStepCommit | undefined,
  endsWorkflow: boolean,
): Promise<AgentResult> {
  if (outcome.kind === 'parked') {
    return {
      sessionId: scope.sessionId,
      runId: scope.runId,
      status: 'suspended_client_tool',
      completionReason: 'suspended',
      stepCount: outcome.stepCount,
      suspended: { reason: outcome.reason, toolCallIds: outcome.toolCallIds, calls: outcome.calls, stepId: outcome.stepId },
    };
  }
  const { kind: _kind, ...result } = outcome;
  const ended = await RunLifecycleStep.finish({
    ...scope,
    ...result,
    ...(input.parent === undefined ? {} : { parent: input.parent }),
    ...(commit === undefined ? {} : { commit }),
  }, { endsWorkflow });
  await atRunBoundary('finish_recorded', scope.sessionId);
  return ended;
}
