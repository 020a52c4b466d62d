import { InvalidArgumentError } from '../errors/index.js';

/**
 * Deterministic id of the `index`-th message written at `step` of run `runId`: `${runId}:${step}:${index}`.
 * Step 0 holds the run's input message; at step n ≥ 1 index 0 is the assistant message and index i + 1 the
 * result of its i-th tool call. Stores ignore an append whose id exists, so retries never duplicate.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` for an empty runId or a negative / non-integer step or index.
 * @example
 * messageId('run-1', 3, 0); // 'run-1:3:0'
 */
export function messageId(runId: string, step: number, index: number): string {
  if (typeof runId !== 'string' || runId === '') throw new InvalidArgumentError('messageId needs a non-empty runId.');
  if (!Number.isInteger(step) || step < 0) throw new InvalidArgumentError('messageId needs a non-negative integer step.');
  if (!Number.isInteger(index) || index < 0) throw new InvalidArgumentError('messageId needs a non-negative integer index.');
  return `${runId}:${step}:${index}`;
}

/**
 * Session id of the ephemeral child started by a sub-agent tool call: `${parentSessionId}-sub-${toolCallId}`.
 *
 * @example
 * ephemeralChildSessionId('s1', 'call_9'); // 's1-sub-call_9'
 */
export function ephemeralChildSessionId(parentSessionId: string, toolCallId: string): string {
  return `${parentSessionId}-sub-${toolCallId}`;
}

/**
 * Session id of a named persistent child (companion): `${parentSessionId}-agent-${name}`.
 *
 * @example
 * persistentChildSessionId('s1', 'researcher'); // 's1-agent-researcher'
 */
export function persistentChildSessionId(parentSessionId: string, name: string): string {
  return `${parentSessionId}-agent-${name}`;
}

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

/** Suffix of the checkpoint a parked step commits under (`${runId}:${step}:suspended`). */
export const SUSPENDED_CHECKPOINT_SUFFIX = ':suspended';

/**
 * Checkpoint id a parked step commits under: `${stepId}:suspended`. Never a resume target of `from_checkpoint`.
 *
 * @example
 * suspendedCheckpointId('run-1:3') // 'run-1:3:suspended'
 */
export function suspendedCheckpointId(stepId: string): string {
  return `${stepId}${SUSPENDED_CHECKPOINT_SUFFIX}`;
}

/**
 * Whether a checkpoint id is a parked step's suspension checkpoint (not a complete step boundary).
 *
 * @example
 * isSuspendedCheckpointId('run-1:3:suspended') // true
 */
export function isSuspendedCheckpointId(checkpointId: string): boolean {
  return checkpointId.endsWith(SUSPENDED_CHECKPOINT_SUFFIX);
}

/** FNV-1a over UTF-16 code units, 2 × 32 bits, as 16 hex characters (pure; not cryptographic). */
function fnv1a64Hex(text: string): string {
  let high = 0x811c9dc5;
  let low = 0x050c5d1f;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    high = Math.imul(high ^ code, 0x01000193) >>> 0;
    low = Math.imul(low ^ (code + index), 0x01000193) >>> 0;
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}

/**
 * Run id of a sub-agent child run started by `toolCallId` in parent run `parentRunId`: deterministic (a replayed
 * parent derives the same id) and of fixed length however deep the tree.
 *
 * @example
 * childRunId('run-1', 'call_9') // 'run-sub-' + 16 hex characters
 */
export function childRunId(parentRunId: string, toolCallId: string): string {
  return `run-sub-${fnv1a64Hex(`${parentRunId}\u0000${toolCallId}`)}`;
}
