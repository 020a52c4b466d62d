import { DBOS } from '@dbos-inc/dbos-sdk';
import { InvalidArgumentError } from '../errors/index.js';
import { PRUNED_MARKER } from '../store/retention-marker.js';
import type { SessionStateStore } from '../store/state-store.js';
import type { StreamManager } from '../stream/stream-manager.js';

/**
 * Options of `DBOSAgentExecutor.pruneFinishedSessions`.
 *
 * @example
 * const options: PruneOptions = { olderThanMs: 7 * 24 * 3_600_000, limit: 500 };
 */
export interface PruneOptions {
  /** Prune sessions that finished (completed or failed) at least this long ago. */
  olderThanMs: number;
  /** Sessions per call (1–1,000, default 100); call again while `sessions` equals the limit. */
  limit?: number;
}

/**
 * What one retention pass removed.
 *
 * @example
 * const { sessions, chunksDeleted, workflowsDeleted }: PruneResult = await executor.pruneFinishedSessions({ olderThanMs: 0 });
 */
export interface PruneResult {
  sessions: number;
  chunksDeleted: number;
  /** DBOS workflow records of the sessions' runs (with their sub-agent child workflows). */
  workflowsDeleted: number;
}

/**
 * Retention: for root sessions finished longer ago than `olderThanMs`, delete the stream chunks (the stream record
 * stays, so a later turn continues its sequence) and the DBOS workflow records of their runs, including sub-agent
 * child workflows. Messages, checkpoints, run records, usage and state are never touched, and a session that is
 * running or resumable is never listed. Each pruned session is marked (`helix.prunedAt`) so the next pass moves on.
 *
 * @throws InvalidArgumentError `INVALID_ARGUMENT` for a negative or non-finite `olderThanMs`.
 * @example
 * await pruneFinishedSessions(stateStore, streamManager, { olderThanMs: 30 * 24 * 3_600_000 });
 */
export async function pruneFinishedSessions(stateStore: SessionStateStore, streamManager: StreamManager, options: PruneOptions): Promise<PruneResult> {
  if (!Number.isFinite(options.olderThanMs) || options.olderThanMs < 0) {
    throw new InvalidArgumentError('olderThanMs must be a non-negative number of milliseconds.', { field: 'olderThanMs' });
  }
  const finished = await stateStore.listFinishedSessions(Date.now() - options.olderThanMs, options.limit === undefined ? {} : { limit: options.limit });
  let chunksDeleted = 0;
  let workflowsDeleted = 0;
  for (const { sessionId, streamId } of finished) {
    const { runs } = await stateStore.listRuns(sessionId);
    const workflowIds = runs.flatMap((run) => (run.workflowId === undefined ? [] : [run.workflowId]));
    if (workflowIds.length > 0) {
      await DBOS.deleteWorkflows(workflowIds, true);
      workflowsDeleted += workflowIds.length;
    }
    chunksDeleted += await streamManager.pruneChunks(streamId);
    await stateStore.patchMetadata(sessionId, { [PRUNED_MARKER]: String(Date.now()) });
  }
  return { sessions: finished.length, chunksDeleted, workflowsDeleted };
}
