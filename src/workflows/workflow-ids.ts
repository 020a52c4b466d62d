/**
 * Deterministic DBOS workflow id of a standard-mode run: `${agentType}__${sessionId}__${runId}`.
 *
 * @example
 * standardWorkflowId('assistant', 's1', 'run-1') // 'assistant__s1__run-1'
 */
export function standardWorkflowId(agentType: string, sessionId: string, runId: string): string {
  return `${agentType}__${sessionId}__${runId}`;
}

/**
 * Deterministic DBOS workflow id of a persistent-mode session: `${agentType}__${sessionId}__persistent`.
 *
 * @example
 * persistentWorkflowId('assistant', 's1') // 'assistant__s1__persistent'
 */
export function persistentWorkflowId(agentType: string, sessionId: string): string {
  return `${agentType}__${sessionId}__persistent`;
}

/**
 * Checkpoint id of step `stepNumber` of a run: `${runId}:${stepNumber}`. Also the staging step id.
 *
 * @example
 * checkpointIdFor('run-1', 3) // 'run-1:3'
 */
export function checkpointIdFor(runId: string, stepNumber: number): string {
  return `${runId}:${stepNumber}`;
}
