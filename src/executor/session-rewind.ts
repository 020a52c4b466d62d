import { NotResumableError } from '../errors/index.js';
import { isSuspendedCheckpointId } from '../orchestration/ids.js';
import { forgetHistory } from '../steps/history-cache.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { Checkpoint } from '../types/session.js';

/**
 * The checkpoint a `from_checkpoint` resume rewinds to: `checkpointId`, or the latest complete step boundary.
 * Read-only, so `resume()` can validate it before it takes the session.
 *
 * @throws NotResumableError `NOT_RESUMABLE` when there is no such checkpoint.
 * @example
 * const checkpoint = await rewindTarget(stateStore, 's1', undefined);
 */
export async function rewindTarget(stateStore: SessionStateStore, sessionId: string, checkpointId: string | undefined): Promise<Checkpoint> {
  const checkpoint = checkpointId === undefined ? await latestStepBoundary(stateStore, sessionId) : await stateStore.getCheckpoint(sessionId, checkpointId);
  if (checkpoint === null) throw new NotResumableError(sessionId, 'no checkpoint', 'from_checkpoint needs a checkpoint; use mode "continue".');
  return checkpoint;
}

/**
 * Rewind a session's messages and custom state to a checkpoint; a parked step and its pending calls go with
 * everything after the checkpoint.
 *
 * @example
 * await rewindSession(stateStore, 's1', await rewindTarget(stateStore, 's1', undefined));
 */
export async function rewindSession(stateStore: SessionStateStore, sessionId: string, checkpoint: Checkpoint): Promise<void> {
  await stateStore.truncateMessages(sessionId, checkpoint.messageCount);
  await stateStore.saveState(sessionId, {
    customState: checkpoint.customState,
    checkpointId: checkpoint.id,
    pendingClientToolCalls: undefined,
    suspendedStepId: undefined,
  });
  forgetHistory(sessionId);
}

/**
 * The latest checkpoint at a complete step boundary: a parked step's `…:suspended` checkpoint ends on tool
 * calls still waiting for results, so rewinding to it would leave the transcript invalid.
 */
async function latestStepBoundary(stateStore: SessionStateStore, sessionId: string): Promise<Checkpoint | null> {
  const latest = await stateStore.getLatestCheckpoint(sessionId);
  if (latest === null || !isSuspendedCheckpointId(latest.id)) return latest;
  const boundaries = (await stateStore.listCheckpoints(sessionId)).filter((checkpoint) => !isSuspendedCheckpointId(checkpoint.id));
  return boundaries.reduce<Checkpoint | null>((best, checkpoint) => (best === null || checkpoint.createdAt >= best.createdAt ? checkpoint : best), null);
}
