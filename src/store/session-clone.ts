import type { Checkpoint, SessionState } from '../types/session.js';
import { cloneJson } from '../database/json.js';

/** Fields that belong to the source session's live execution and are not copied into a branch. */
const EXECUTION_FIELDS = [
  'streamId',
  'parentSessionId',
  'rootSessionId',
  'pendingClientToolCalls',
  'suspendedAwaitingChildren',
  'suspendedStepId',
  'completedClientToolCalls',
  'clientToolCallOwnership',
  'tracingContext',
  'checkpointId',
  'checkpointedAt',
  'checkpointSource',
] as const;

/**
 * The state of a session branched from `source`: a new root session (version 1, resumeCount 0) with the
 * source's agent type (or `agentType`), status, output, mode, user, tags and metadata. With a checkpoint,
 * customState and stepCount come from the checkpoint's snapshot and the branch points at that checkpoint
 * (which the store copies into the branch); without one, the current customState is copied and the branch
 * has no checkpoint. Live execution fields (stream, pending client tools, suspension, tracing, parent
 * links) are not copied.
 *
 * @example
 * const branch = buildClonedSessionState(source, 'branch-1', checkpoint, undefined, Date.now());
 */
export function buildClonedSessionState(
  source: SessionState,
  targetSessionId: string,
  checkpoint: Checkpoint | null,
  agentType: string | undefined,
  now: number,
): SessionState {
  const copy = cloneJson(source, 'source session') as unknown as Record<string, unknown>;
  for (const field of EXECUTION_FIELDS) delete copy[field];
  const branch = {
    ...copy,
    sessionId: targetSessionId,
    agentType: agentType ?? source.agentType,
    version: 1,
    resumeCount: 0,
    createdAt: now,
    updatedAt: now,
  } as unknown as SessionState;
  if (checkpoint !== null) {
    branch.customState = cloneJson(checkpoint.customState, 'checkpoint.customState');
    branch.stepCount = checkpoint.stepCount;
    branch.checkpointId = checkpoint.id;
    branch.checkpointedAt = checkpoint.createdAt;
  }
  return branch;
}
