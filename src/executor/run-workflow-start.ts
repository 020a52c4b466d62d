import { DBOS, type WorkflowHandle } from '@dbos-inc/dbos-sdk';
import { markWorkflowStartedHere } from '../steps/stream-reset-tracker.js';
import { AgentWorkflows, type AgentWorkflowInput } from '../workflows/agent.workflow.js';
import { enqueueParams } from '../orchestration/queue-placement.js';
import { telemetry } from '../telemetry/agent-telemetry.js';

/**
 * Start a run's DBOS workflow (deterministic id: it starts once), marked as started here. With DBOS tracing on, DBOS's
 * workflow span starts in the run's span context: a child of the run's `invoke_agent` span.
 *
 * @example
 * const live = localHandle(input, await startRunWorkflow(input));
 */
export function startRunWorkflow(input: AgentWorkflowInput): Promise<WorkflowHandle<unknown>> {
  markWorkflowStartedHere(input.workflowId);
  // DBOS needs the registered (decorated) static method itself, not a wrapper.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const start = () => DBOS.startWorkflow(AgentWorkflows.runAgent, { workflowID: input.workflowId, ...enqueueParams(input.queue) })(input);
  return telemetry().startingRun(input, start);
}

/**
 * The DBOS handle of a run started in this process, to await in place; none for a queued run (any worker may run it:
 * its handle polls DBOS and the run record instead of waiting on this process's signals).
 *
 * @example
 * const live = localHandle(input, await DBOS.startWorkflow(AgentWorkflows.runAgent, params)(input));
 */
export function localHandle(input: Pick<AgentWorkflowInput, 'queue'>, live: WorkflowHandle<unknown> | undefined): WorkflowHandle<unknown> | undefined {
  return input.queue === undefined ? live : undefined;
}
