import { DBOS } from '@dbos-inc/dbos-sdk';
import { ChangeSignal } from '../stream/change-signal.js';
import type { StreamManager } from '../stream/stream-manager.js';
import type { StreamChunk } from '../types/stream.js';

/** Chunk types that end a run's stream part (FinishRunStep writes one of them for the run's own agent). */
const ENDING_CHUNKS = new Set<StreamChunk['type']>(['output', 'error', 'run_interrupted']);
const ENDED_STATUSES = new Set(['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED']);
/** How often DBOS is asked before the run's stream said it ended (a safety net: the stream wakes the wait), and after. */
export const REMOTE_SAFETY_CHECK_MS = 1_000;
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
 * A watch over a run another process runs, through its stream (the stream manager's notifications, no polling): its
 * version moves when a human wait starts (`run_suspended`, of the run or a child) or the run's ending chunk arrives,
 * and `ended` is true from the ending chunk on. A reader failure only stops the watch (callers keep a safety poll).
 *
 * @example
 * const watch = RunWatch.start({ streamManager, streamId, startSequence, agentId: sessionId });
 * await watch.wait(watch.version, 1_000);
 * watch.close();
 */
export class RunWatch {
  readonly #signal = new ChangeSignal();
  readonly #stop = new AbortController();
  #ended = false;

  private constructor() {}

  /** Start reading the run's stream from its start. */
  static start(run: RunStream): RunWatch {
    const watch = new RunWatch();
    void watch.read(run);
    return watch;
  }

  get ended(): boolean {
    return this.#ended;
  }

  get version(): number {
    return this.#signal.version;
  }

  /** Resolve once the version passed `seen`, after `timeoutMs`, or when closed. */
  wait(seen: number, timeoutMs: number): Promise<void> {
    return this.#signal.waitBeyond(seen, timeoutMs, this.#stop.signal);
  }

  close(): void {
    this.#stop.abort();
  }

  private async read(run: RunStream): Promise<void> {
    try {
      const reader = await run.streamManager.createReader(run.streamId, run.startSequence);
      const closeReader = () => void reader.close().catch(() => undefined);
      this.#stop.signal.addEventListener('abort', closeReader, { once: true });
      try {
        for await (const chunk of reader) {
          if (this.#stop.signal.aborted) return;
          if (chunk.agentId === run.agentId && ENDING_CHUNKS.has(chunk.type)) {
            this.#ended = true;
            this.#signal.notify();
            return;
          }
          if (chunk.type === 'run_suspended') this.#signal.notify();
        }
      } finally {
        this.#stop.signal.removeEventListener('abort', closeReader);
        await reader.close().catch(() => undefined);
      }
    } catch {
      // The safety polls carry on alone.
    }
  }
}

/**
 * The result of a workflow another process runs (a queued run): DBOS is asked once a second until the run's stream
 * carries its ending chunk (the watch wakes this at once), then every 5 ms until DBOS records the outcome a moment
 * later. Throws what DBOS's `getResult` throws.
 *
 * @example
 * const result = await awaitRemoteResult<AgentResult>(workflowId, watch);
 */
export async function awaitRemoteResult<T>(workflowId: string, watch: RunWatch): Promise<T> {
  for (;;) {
    const seen = watch.version;
    const status = await DBOS.getWorkflowStatus(workflowId);
    if (status !== null && ENDED_STATUSES.has(status.status)) return await DBOS.retrieveWorkflow<T>(workflowId).getResult();
    if (watch.ended) await sleep(POLL_AFTER_END_MS);
    else await watch.wait(seen, REMOTE_SAFETY_CHECK_MS);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
