import { DBOS } from '@dbos-inc/dbos-sdk';
import type { StreamManager } from '../stream/stream-manager.js';
import type { StreamChunk } from '../types/stream.js';

/** Chunk types that end a run's stream part (FinishRunStep writes one of them for the run's own agent). */
const ENDING_CHUNKS = new Set<StreamChunk['type']>(['output', 'error', 'run_interrupted']);
const ENDED_STATUSES = new Set(['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED']);
/** How often DBOS is asked before the run's stream said it ended, and after. */
const POLL_MS = 100;
const POLL_AFTER_END_MS = 5;

/**
 * Where a run writes its chunks: its stream from the run's start, and the agent id of its own chunks.
 *
 * @example
 * const watched: RunStream = { streamManager, streamId: 's1', startSequence: 0, agentId: 's1' };
 */
export interface RunStream {
  streamManager: StreamManager;
  streamId: string;
  startSequence: number;
  agentId: string;
}

/**
 * The result of a workflow another process runs (a queued run): DBOS is asked every 100 ms until the run's stream
 * carries its ending chunk (the stream manager's notification wakes this at once), then every 5 ms until DBOS
 * records the outcome a moment later. Throws what DBOS's `getResult` throws.
 *
 * @example
 * const result = await awaitRemoteResult<AgentResult>(workflowId, { streamManager, streamId, startSequence, agentId: sessionId });
 */
export async function awaitRemoteResult<T>(workflowId: string, run: RunStream): Promise<T> {
  const stop = new AbortController();
  let ended = false;
  const streamEnded = watchEnding(run, stop.signal).then(() => {
    ended = true;
  });
  try {
    for (;;) {
      const status = await DBOS.getWorkflowStatus(workflowId);
      if (status !== null && ENDED_STATUSES.has(status.status)) return await DBOS.retrieveWorkflow<T>(workflowId).getResult();
      await Promise.race([ended ? undefined : streamEnded, sleep(ended ? POLL_AFTER_END_MS : POLL_MS)]);
    }
  } finally {
    stop.abort();
  }
}

/** Resolves when the run's ending chunk is in its stream (never rejects; a reader failure just stops the watch). */
async function watchEnding(run: RunStream, signal: AbortSignal): Promise<void> {
  try {
    const reader = await run.streamManager.createReader(run.streamId, run.startSequence);
    const closeOnAbort = () => void reader.close().catch(() => undefined);
    signal.addEventListener('abort', closeOnAbort, { once: true });
    try {
      for await (const chunk of reader) {
        if (signal.aborted) return;
        if (chunk.agentId === run.agentId && ENDING_CHUNKS.has(chunk.type)) return;
      }
    } finally {
      signal.removeEventListener('abort', closeOnAbort);
      await reader.close().catch(() => undefined);
    }
  } catch {
    // The DBOS poll carries on alone.
  }
  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
