import { DBOS, type WorkflowStatus, type WorkflowStatusString } from '@dbos-inc/dbos-sdk';

const ENDED_STATUSES: WorkflowStatusString[] = ['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED'];
/**
 * How often the process asks DBOS, in one query, which of the watched runs ended, while one of them has no end hint:
 * every 1 ms + 1 ms per watched run, at most every 20 ms (a caller awaiting one run learns of its end within a few ms;
 * many awaited runs share one query every 20 ms).
 */
const STATUS_POLL_BASE_MS = 1;
const STATUS_POLL_MAX_MS = 20;
/** How often, while every watched run has an end hint: a safety net (a notification can be lost). */
const HINTED_POLL_MS = 20;
/**
 * The least time between two queries: 1 ms per watched run, at most HINTED_POLL_MS (the hints of many runs ending one
 * after another share the queries, one every 20 ms when 20 or more are watched).
 */
const minGapMs = (): number => Math.min(HINTED_POLL_MS, watches.size);
/**
 * After a run's end hint (its stream ended), the next queries come these many ms apart: DBOS records a workflow's end
 * a millisecond or two after the run's stream ends, so a caller learns of it about a millisecond after it (at 1, 2, 3,
 * 4, 6, 10 and 18 ms after the hint, then back to the safety net).
 */
const AFTER_HINT_MS = [1, 1, 1, 1, 2, 4, 8];
/** Most workflow ids per status query. */
const STATUS_BATCH = 500;

/**
 * A subscription to a hint that a run may have ended (its stream's end, `StreamManager.onStreamEnd`): calls `wake`
 * on each hint, returns the unsubscribe.
 *
 * @example
 * const endHint: EndHint = (wake) => streamManager.onStreamEnd!(streamId, wake);
 */
export type EndHint = (wake: () => void) => () => void;

interface Watch {
  wakes: Set<(status?: WorkflowStatus) => void>;
  /** How many of the waiters come without an end hint (the loop then polls often). */
  unhinted: number;
  /** The next poll of this run after a hint: when, and its place in AFTER_HINT_MS. */
  hot?: { at: number; index: number };
}

/** The watched workflows, by id. */
const watches = new Map<string, Watch>();
let polling = false;
/** Ends the poll loop's current sleep early (a hint came). */
let wakeLoop: (() => void) | undefined;

/**
 * Resolve once DBOS records `workflowId` as ended, with the status the watch read (its output loaded); `undefined`
 * when `signal` aborted first. All the process's waits share one loop that asks DBOS for the status of every watched
 * workflow in one query while any is watched: handles of runs elsewhere (queued runs) cost one query per process, not
 * one per handle. With `endHint` (the run's stream's end), the loop asks every 20 ms and, after a hint, that run at
 * 1, 2, 4, 8 and 16 ms; without, every 2–20 ms (slower the more are watched).
 *
 * @example
 * const status = await workflowEnded(workflowId, undefined, (wake) => streamManager.onStreamEnd!(streamId, wake));
 * const result = status?.status === 'SUCCESS' ? status.output : await DBOS.retrieveWorkflow(workflowId).getResult();
 */
export function workflowEnded(workflowId: string, signal?: AbortSignal, endHint?: EndHint): Promise<WorkflowStatus | undefined> {
  if (signal?.aborted === true) return Promise.resolve(undefined);
  return new Promise<WorkflowStatus | undefined>((resolve) => {
    const watch = watches.get(workflowId) ?? { wakes: new Set<(status?: WorkflowStatus) => void>(), unhinted: 0 };
    watches.set(workflowId, watch);
    const unhint = endHint?.(() => heat(workflowId));
    if (unhint === undefined) watch.unhinted += 1;
    const done = (status?: WorkflowStatus): void => {
      watch.wakes.delete(done);
      if (unhint === undefined) watch.unhinted -= 1;
      else unhint();
      if (watch.wakes.size === 0 && watches.get(workflowId) === watch) watches.delete(workflowId);
      signal?.removeEventListener('abort', aborted);
      resolve(status);
    };
    const aborted = (): void => done();
    watch.wakes.add(done);
    signal?.addEventListener('abort', aborted, { once: true });
    if (!polling) void poll();
    // Joining a loop that is asking already: one query soon for it too (it may have ended already).
    else watch.hot ??= { at: performance.now(), index: AFTER_HINT_MS.length - 1 };
    wakeLoop?.();
  });
}

/** A hint that `workflowId` may have ended: ask for it again soon (AFTER_HINT_MS). */
function heat(workflowId: string): void {
  const watch = watches.get(workflowId);
  if (watch === undefined) return;
  watch.hot = { at: performance.now() + (AFTER_HINT_MS[0] ?? 1), index: 0 };
  wakeLoop?.();
}

async function poll(): Promise<void> {
  polling = true;
  let lastQuery = Number.NEGATIVE_INFINITY;
  try {
    while (watches.size > 0) {
      const now = performance.now();
      const hot = Math.min(...[...watches.values()].map((watch) => watch.hot?.at ?? Number.POSITIVE_INFINITY));
      // A hint brings the next query forward (never closer than the least gap) rather than adding one.
      const due = Math.max(Math.min(lastQuery + fullInterval(), hot), lastQuery + minGapMs());
      if (now < due) {
        await sleep(due - now);
        continue;
      }
      lastQuery = now;
      await wakeEnded([...watches.keys()]);
      for (const watch of watches.values()) cool(watch, now);
    }
  } finally {
    polling = false;
    if (watches.size > 0) void poll();
  }
}

/** Ask DBOS which of `ids` ended (only those come back, each with its output) and wake their waiters. */
async function wakeEnded(ids: readonly string[]): Promise<void> {
  for (let start = 0; start < ids.length; start += STATUS_BATCH) {
    const workflowIDs = ids.slice(start, start + STATUS_BATCH);
    const statuses = await DBOS.listWorkflows({ workflowIDs, status: ENDED_STATUSES, loadInput: false, loadOutput: true }).catch(() => []);
    for (const status of statuses) {
      for (const wake of [...(watches.get(status.workflowID)?.wakes ?? [])]) wake(status);
    }
  }
}

/** The next poll of a run asked for after a hint: the next delay, or none after the last. */
function cool(watch: Watch | undefined, polledAt: number): void {
  if (watch?.hot === undefined || watch.hot.at > polledAt) return;
  const index = watch.hot.index + 1;
  const delay = AFTER_HINT_MS[index];
  watch.hot = delay === undefined ? undefined : { at: polledAt + delay, index };
}

function fullInterval(): number {
  const unhinted = [...watches.values()].some((watch) => watch.unhinted > 0);
  return unhinted ? Math.min(STATUS_POLL_MAX_MS, STATUS_POLL_BASE_MS + watches.size) : HINTED_POLL_MS;
}

/** Sleep `ms`, or until a hint wakes the loop. */
function sleep(ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const finish = (): void => {
      clearTimeout(timer);
      if (wakeLoop === finish) wakeLoop = undefined;
      resolve();
    };
    const timer = setTimeout(finish, Math.max(0, ms));
    timer.unref();
    wakeLoop = finish;
  });
}

/**
 * The result of a workflow another process runs (a queued run): waits for its end through {@link workflowEnded};
 * a success's output comes with the status the watch read, any other end is read with DBOS's `getResult` (and
 * throws what it throws).
 *
 * @example
 * const result = await awaitRemoteResult<AgentResult>(workflowId, (wake) => streamManager.onStreamEnd!(streamId, wake));
 */
export async function awaitRemoteResult<T>(workflowId: string, endHint?: EndHint): Promise<T> {
  const ended = await workflowEnded(workflowId, undefined, endHint);
  if (ended?.status === 'SUCCESS' && ended.output !== undefined) return ended.output as T;
  return DBOS.retrieveWorkflow<T>(workflowId).getResult();
}
