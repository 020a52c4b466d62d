import { DBOS, type WorkflowStatus, type WorkflowStatusString } from '@dbos-inc/dbos-sdk';

const ENDED_STATUSES: WorkflowStatusString[] = ['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'];
/**
 * How often the process asks DBOS, in one query, which of the watched runs ended: every 1 ms + 1 ms per watched run,
 * at most every 20 ms (a caller awaiting one run learns of its end within a few ms; many awaited runs share one query
 * every 20 ms).
 */
const STATUS_POLL_BASE_MS = 1;
const STATUS_POLL_MAX_MS = 20;
/** Most workflow ids per status query. */
const STATUS_BATCH = 500;

/** Waiters for the end of each watched workflow, given its ended status (output loaded). */
const waiters = new Map<string, Set<(status?: WorkflowStatus) => void>>();
let polling = false;

/**
 * Resolve once DBOS records `workflowId` as ended, with the status the watch read (its output loaded); `undefined`
 * when `signal` aborted first. All the process's waits share one loop that asks DBOS for the status of every watched
 * workflow in one query (every 2–20 ms, slower the more are watched) while any is watched: handles of runs elsewhere
 * (queued runs) cost one query per process, not one per handle.
 *
 * @example
 * const status = await workflowEnded(workflowId);
 * const result = status?.status === 'SUCCESS' ? status.output : await DBOS.retrieveWorkflow(workflowId).getResult();
 */
export function workflowEnded(workflowId: string, signal?: AbortSignal): Promise<WorkflowStatus | undefined> {
  if (signal?.aborted === true) return Promise.resolve(undefined);
  return new Promise<WorkflowStatus | undefined>((resolve) => {
    const set = waiters.get(workflowId) ?? new Set<(status?: WorkflowStatus) => void>();
    waiters.set(workflowId, set);
    const done = (status?: WorkflowStatus): void => {
      set.delete(done);
      if (set.size === 0 && waiters.get(workflowId) === set) waiters.delete(workflowId);
      signal?.removeEventListener('abort', aborted);
      resolve(status);
    };
    const aborted = (): void => done();
    set.add(done);
    signal?.addEventListener('abort', aborted, { once: true });
    if (!polling) void poll();
  });
}

async function poll(): Promise<void> {
  polling = true;
  try {
    while (waiters.size > 0) {
      const ids = [...waiters.keys()];
      for (let start = 0; start < ids.length; start += STATUS_BATCH) {
        // Only the ended ones come back (not a row per running workflow on every poll), each with its output: the
        // result, no second query for it.
        const workflowIDs = ids.slice(start, start + STATUS_BATCH);
        const statuses = await DBOS.listWorkflows({ workflowIDs, status: ENDED_STATUSES, loadInput: false, loadOutput: true }).catch(() => []);
        for (const status of statuses) {
          for (const wake of [...(waiters.get(status.workflowID) ?? [])]) wake(status);
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
 * The result of a workflow another process runs (a queued run): waits for its end through {@link workflowEnded};
 * a success's output comes with the status the watch read, any other end is read with DBOS's `getResult` (and
 * throws what it throws).
 *
 * @example
 * const result = await awaitRemoteResult<AgentResult>(workflowId);
 */
export async function awaitRemoteResult<T>(workflowId: string): Promise<T> {
  const ended = await workflowEnded(workflowId);
  if (ended?.status === 'SUCCESS' && ended.output !== undefined) return ended.output as T;
  return DBOS.retrieveWorkflow<T>(workflowId).getResult();
}
