import { DBOS } from '@dbos-inc/dbos-sdk';
import { RunLifecycleStep } from '../steps/run-lifecycle.step.js';
import { markWorkflowStartedHere } from '../steps/stream-reset-tracker.js';
import { resolveRegisteredAgent } from '../steps/runtime-registry.js';
import { describeError, type RunScope } from '../steps/step-scope.js';
import type { AgentResult } from '../types/result.js';
import { isDBOSControlError } from './dbos-control-errors.js';
import { bindChildStarter } from './sub-agent-dispatch.js';
import { runTurn } from './turn-loop.js';
import { childDoneChannel } from './workflow-messages.js';
import { finished, type AgentWorkflowInput, type TurnOutcome } from './turn-types.js';

export type { AgentWorkflowInput } from './turn-types.js';

/**
 * The standard-mode agent run as a DBOS workflow: BeginRunStep → one turn (`runTurn`) → FinishRunStep. A turn
 * that parks waiting for humans has recorded its suspension and ends without a finish step.
 */
export class AgentWorkflows {
  @DBOS.workflow({ name: 'helix.runAgent' })
  static async runAgent(input: AgentWorkflowInput): Promise<AgentResult> {
    const scope: RunScope = {
      sessionId: input.sessionId,
      runId: input.runId,
      agentType: input.agentType,
      streamId: input.streamId,
      workflowId: input.workflowId,
      rootSessionId: input.rootSessionId,
    };
    let agent: Awaited<ReturnType<typeof resolveRegisteredAgent>>;
    try {
      agent = await resolveRegisteredAgent(input.agentType);
    } catch (error) {
      // The agent never registered in this process: end the run `failed` (retry() works) instead of leaving it running.
      const result = await RunLifecycleStep.abandon({ ...scope, error: describeError(error), ...(input.parent === undefined ? {} : { parent: input.parent }) });
      await notifyParent(input);
      return result;
    }
    const begun = await RunLifecycleStep.begin({
      ...scope,
      // A message sent with a resume that settles a parked step goes after that step's tool results.
      ...(input.userMessage === undefined || input.resume?.suspension !== undefined ? {} : { userMessage: input.userMessage }),
      ...(input.initialState === undefined ? {} : { initialState: input.initialState }),
      ...(input.resume === undefined ? {} : { resumedFrom: { previousRunId: input.resume.previousRunId, settlesSuspension: input.resume.suspension !== undefined } }),
    });
    if (begun.aborted === true) {
      await notifyParent(input);
      return { sessionId: scope.sessionId, runId: scope.runId, status: 'aborted', completionReason: 'aborted', stepCount: 0 };
    }
    const progress = { step: 0 };
    let outcome: TurnOutcome;
    try {
      outcome = await runTurn({ agent, scope, input, progress });
    } catch (error) {
      // Ownership lost (another process runs this workflow now) or cancelled: not this run's failure.
      if (isDBOSControlError(error)) throw error;
      outcome = finished('failed', 'failed', progress.step, { error: describeError(error) });
    }
    const result = await recordOutcome(scope, input, outcome);
    await notifyParent(input);
    return result;
  }
}

/** A sub-agent run tells its parent's workflow that it ended. */
async function notifyParent(input: AgentWorkflowInput): Promise<void> {
  if (input.parent !== undefined) {
    await childDoneChannel.send(input.parent.workflowId, input.parent.callId, { kind: 'child_done', childSessionId: input.sessionId });
  }
}

async function recordOutcome(scope: RunScope, input: AgentWorkflowInput, outcome: TurnOutcome): Promise<AgentResult> {
  if (outcome.kind === 'parked') {
    return {
      sessionId: scope.sessionId,
      runId: scope.runId,
      status: 'suspended_client_tool',
      completionReason: 'suspended',
      stepCount: outcome.stepCount,
      suspended: { reason: outcome.reason, toolCallIds: outcome.toolCallIds, stepId: outcome.stepId },
    };
  }
  const { kind: _kind, ...result } = outcome;
  return RunLifecycleStep.finish({ ...scope, ...result, ...(input.parent === undefined ? {} : { parent: input.parent }) });
}

// Child runs (sub-agents) start the same workflow function; the dispatch module cannot import this one.
// DBOS needs the registered (decorated) static method itself, not a wrapper.
bindChildStarter((input) => {
  markWorkflowStartedHere(input.workflowId);
  // eslint-disable-next-line @typescript-eslint/unbound-method
  return DBOS.startWorkflow(AgentWorkflows.runAgent, { workflowID: input.workflowId })(input);
});

/**
 * Evaluate the DBOS workflow decorators of the agent runtime. Call before `DBOS.launch()`; idempotent (the
 * `DBOSAgentExecutor` constructor calls it too).
 *
 * @example
 * registerDBOSAgentWorkflows();
 * await DBOS.launch();
 */
export function registerDBOSAgentWorkflows(): void {
  // Importing this module evaluated the decorators; referencing the class keeps bundlers from dropping it.
  void AgentWorkflows;
}
