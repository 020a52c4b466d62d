/**
 * Workflows whose LLM steps already ran in this process. The first LLM step a process runs for a workflow
 * it did not start (recovery after a crash) may follow partial chunks of a killed attempt, so it resets
 * the step's stream first; a workflow started here needs no reset. Entries go when the run ends or parks.
 */
const workflowsSeenHere = new Set<string>();

/** @internal Mark a workflow as started (or already reset) in this process. */
export function markWorkflowStartedHere(workflowId: string): void {
  workflowsSeenHere.add(workflowId);
}

/** @internal True (once) when this process has not run an LLM step of the workflow yet. */
export function needsStreamReset(workflowId: string): boolean {
  if (workflowsSeenHere.has(workflowId)) return false;
  workflowsSeenHere.add(workflowId);
  return true;
}

/** @internal Forget a workflow that ended or parked. */
export function forgetWorkflow(workflowId: string): void {
  workflowsSeenHere.delete(workflowId);
}

/**
 * @internal Whether this process started the workflow or already ran one of its LLM steps: false for the steps a
 * process runs first after recovering it (telemetry counts them as a second attempt).
 */
export function seenHere(workflowId: string): boolean {
  return workflowsSeenHere.has(workflowId);
}
