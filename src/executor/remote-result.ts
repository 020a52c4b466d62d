import { DBOS } from '@dbos-inc/dbos-sdk';

const ENDED_STATUSES = new Set(['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED']);
/** How often a handle of a run elsewhere checks the store for a human wait (a safety net beside the status watch). */
export const REMOTE_SAFETY_CHECK_MS = 1_000;
/**
 * How often the process asks DBOS, in one query, which of the watched runs ended: every 2 ms + 1 ms per watched run,
 * at most every 20 ms (a caller awaiting one run learns of its end within a few ms; many awaited runs share one query
 * every 20 ms).
 */
const STATUS_POLL_BASE_MS = 2;
const STATUS_POLL_MAX_MS = 20;
/** Most workflow ids per status query. */
const STATUS_BATCH = 500;

/** Waiters for the end of each watched workflow. */
const waiters = new Map<string, Set<() => void>>();
let polling = false;

/**
 * Resolve once DBOS records `workflowId` as ended (or `signal` aborts). All the process's waits share one loop that
 * asks DBOS for the status of every watched workflow in one query (every 3–20 ms, slower the more are watched) while
 * any is watched: handles of runs elsewhere (queued runs) cost one query per process, not one per handle.
 *
 * @example
 * await workflowEnded(workflowId);
 * const result = await DBOS.retrieveWorkflow(workflowId).getResult();
 */
export function workflowEnded(workflowId: string, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const set = waiters.get(workflowId) ?? new Set<() => void>();
    waiters.set(workflowId, set);
    const done = (): void => {
      set.delete(done);
      if (set.size === 0 && waiters.get(workflowId) === set) waiters.delete(workflowId);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    set.add(done);
    signal?.addEventListener('abort', done, { once: true });
    if (!polling) void poll();
  });
}

async function poll(): Promise<void> {
  polling = true;
  try {
    while (waiters.size > 0) {
      const ids = [...waiters.keys()];
      for (let start = 0; start < ids.length; start += STATUS_BATCH) {
        const statuses = await DBOS.listWorkflows({ workflowIDs: ids.slice(start, start + STATUS_BATCH), loadInput: false, loadOutput: false }).catch(() => []);
        for (const status of statuses) {
          if (!ENDED_STATUSES.has(status.status)) continue;
          for (const wake of [...(waiters.get(status.workflowID) ?? [])]) wake();
        }
      }
      const interval = Math.min(STATUS_POLL_MAX_MS, STATUS_POLL_BASE_MS + waiters.size);
      if (waiters.size > 0) await new Promise((resolve) => setTimeout(resolve, interval).unref());
    }
  } finally {
    polling = false;
    if (waiters.size > 0) void poll();
  }
}

/**
 * The result of a workflow another process runs (a queued run): waits for its end through {@link workflowEnded},
 * then reads its outcome. Throws what DBOS's `getResult` throws.
 *
 * @example
 * const result = await awaitRemoteResult<AgentResult>(workflowId);
 */
export async function awaitRemoteResult<T>(workflowId: string): Promise<T> {
  await workflowEnded(workflowId);
  return DBOS.retrieveWorkflow<T>(workflowId).getResult();
}
