import type { StreamManager } from './stream-manager.js';

/**
 * Ready the stream of a session created fresh under `streamId` for its first run. A stream an earlier session
 * with that id left behind (its session deleted, or its database reset while the stream lived on, e.g. in Redis)
 * loses its chunks and becomes active again: the new run's writes are not refused (`STREAM_CLOSED`) and whoever
 * reads the stream sees only the new session's chunks. Sequences continue, so a reader's position stays valid.
 * An unknown stream, or an active one without chunks, is left as it is. Call it only from the call that created
 * the session (a concurrent creator that lost must not touch the winner's stream).
 *
 * @throws StoreError when the stream backend fails; InvalidArgumentError `INVALID_ARGUMENT` for a bad stream id.
 * @example
 * await stateStore.createSession(sessionId, { agentType, streamId: sessionId });
 * await reclaimStream(streamManager, sessionId);
 */
export async function reclaimStream(streamManager: StreamManager, streamId: string): Promise<void> {
  const info = await streamManager.getInfo(streamId);
  if (info === null || (info.status === 'active' && info.chunkCount === 0)) return;
  // pruneChunks leaves an active stream alone: a stale active one (its run died with its session) is ended first.
  if (info.status === 'active') await streamManager.endStream(streamId);
  await streamManager.pruneChunks(streamId);
  await streamManager.reactivateStream(streamId);
}
