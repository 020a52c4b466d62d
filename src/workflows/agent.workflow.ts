import { DBOS } from '@dbos-inc/dbos-sdk';
import { notifyChildDone } from '../channels/child-done.js';
import { markWorkflowStartedHere } from '../steps/stream-reset-tracker.js';
import { RunLifecycleStep } from '../steps/run-lifecycle.step.js';
import { resolveRegisteredAgent } from '../steps/runtime-registry.js';
import { describeError, type RunScope } from '../steps/step-scope.js';
import type { AgentResult } from '../types/result.js';
import { PersistentWorkflows } from './persistent.workflow.js';
import { bindChildStarter } from './sub-agent-dispatch.js';
import { runRecordedTurn } from './turn-runner.js';
import { refuseForeignWorkflowId } from './fork-guard.js';
import type { AgentWorkflowInput } from './turn-types.js';
import { refuseUnknownJournal } from '../journal/format.js';
import { enqueueParams } from '../orchestration/queue-placement.js';
import { runningHere } from './warm-waits.js';

export type { AgentWorkflowInput } from './turn-types.js';

/**
 * The standard-mode agent run as a DBOS workflow: BeginRunStep → one turn (`runTurn`) → FinishRunStep. A turn
 * that parks waiting for humans has recorded its suspension and ends without a finish step.
 */
export class AgentWorkflows {
  @DBOS.workflow({ name: 'helix.runAgent' })
  static async runAgent(input: AgentWorkflowInput): Promise<AgentResult> {
    refuseForeignWorkflowId(input.workflowId);
    refuseUnknownJournal(input.workflowId, input.journal);
    const scope: RunScope = {
      sessionId: input.sessionId,
      runId: input.runId,
      agentType: input.agentType,
      streamId: input.streamId,
      workflowId: input.workflowId,
      rootSessionId: input.rootSessionId,
      // A remote caller's trace (`traceparent`): every step's spans join it.
      ...(input.trace === undefined ? {} : { trace: input.trace }),
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
    // A root run's finish is the workflow's last operation: its record also writes the workflow's end.
    const endsWorkflow = input.parent === undefined;
    const result = await runningHere(input.workflowId, () => runRecordedTurn(agent, scope, input, { endsWorkflow }));
    await notifyParent(input);
    return result;
  }
}

/** A sub-agent run tells its parent's workflow that it ended. */
async function notifyParent(input: AgentWorkflowInput): Promise<void> {
  if (input.parent !== undefined) {
    await notifyChildDone(input.parent.workflowId, input.parent.callId, input.sessionId);
  }
}

// Child runs (sub-agents) start the same workflow function; the dispatch module cannot import this one.
// DBOS needs the registered (decorated) static method itself, not a wrapper.
bindChildStarter((input) => {
  markWorkflowStartedHere(input.workflowId);
  // eslint-disable-next-line @typescript-eslint/unbound-method
  return DBOS.startWorkflow(AgentWorkflows.runAgent, { workflowID: input.workflowId, ...enqueueParams(input.queue) })(input);
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
  void PersistentWorkflows;
}
