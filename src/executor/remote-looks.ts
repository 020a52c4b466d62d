import type { SessionStateStore } from '../store/state-store.js';
import { waitForRunChange, type RunChange } from '../steps/run-signals.js';

/**
 * How often the handles of runs another process runs (queued runs) ask their store whether a run waits for a human or
 * was aborted: all of a store's watched runs in one read (`runsWaitingOrAborted`) this often.
 */
export const REMOTE_LOOK_MS = 1_000;
/** Most runs per read. */
const LOOK_BATCH = 500;
/** A timer that does not fire in practice (setTimeout's largest delay): the remote wait ends by a look or a signal. */
const NO_TIMEOUT_MS = 2 ** 31 - 1;

interface WatchedRun {
  sessionId: string;
  runId: string;
  wakes: Set<() => void>;
}

/** One store's watched runs and its checks: the periodic one, and one on the next turn for runs just watched. */
class LookLoop {
  readonly runs = new Map<string, WatchedRun>();
  private readonly fresh = new Set<string>();
  private freshCheck: NodeJS.Immediate | undefined;
  private periodic: NodeJS.Timeout | undefined;

  constructor(private readonly store: SessionStateStore) {}

  watch(sessionId: string, runId: string, soon: boolean, wake: () => void): () => void {
    const run = this.runs.get(runId) ?? { sessionId, runId, wakes: new Set<() => void>() };
    this.runs.set(runId, run);
    run.wakes.add(wake);
    if (soon) {
      this.fresh.add(runId);
      this.freshCheck ??= setImmediate(() => {
        this.freshCheck = undefined;
        const ids = [...this.fresh];
        this.fresh.clear();
        void this.check(ids);
      });
    }
    this.periodic ??= setInterval(() => void this.check([...this.runs.keys()]), REMOTE_LOOK_MS).unref();
    return () => this.unwatch(run, wake);
  }

  private unwatch(run: WatchedRun, wake: () => void): void {
    run.wakes.delete(wake);
    if (run.wakes.size > 0 || this.runs.get(run.runId) !== run) return;
    this.runs.delete(run.runId);
    this.fresh.delete(run.runId);
    if (this.runs.size > 0) return;
    clearInterval(this.periodic);
    this.periodic = undefined;
    loops.delete(this.store);
  }

  /** Wake the watchers of the runs among `ids` the store names (all of them when it cannot say, or fails). */
  private async check(ids: readonly string[]): Promise<void> {
    const asked = ids.flatMap((id) => this.runs.get(id) ?? []);
    for (let start = 0; start < asked.length; start += LOOK_BATCH) {
      const batch = asked.slice(start, start + LOOK_BATCH);
      const all = (): string[] => batch.map((run) => run.runId);
      const find = this.store.runsWaitingOrAborted?.bind(this.store);
      // A failed read wakes every watcher: each then reads its own run, and reports what that read says.
      const due = find === undefined ? all() : await find(batch.map(({ sessionId, runId }) => ({ sessionId, runId }))).catch(all);
      for (const runId of due) {
        for (const wake of [...(this.runs.get(runId)?.wakes ?? [])]) wake();
      }
    }
  }
}

const loops = new Map<SessionStateStore, LookLoop>();

/**
 * Wait for a change of a run another process runs: a signal of `keys` in this process (`waitForRunChange`), or its
 * store naming the run as aborted or possibly waiting for a human. The store is asked for all the process's watched
 * runs in one read: every {@link REMOTE_LOOK_MS}, and, with `soon` (a handle's first wait), on the next turn of the
 * event loop (every run first watched in the same turn joins that read). Resolves with the signal's change, or
 * `undefined` for the store's word or `stop`'s abort.
 *
 * @example
 * const change = await remoteRunChange(stateStore, { sessionId, runId }, [runId], true, stop.signal);
 * if (change !== 'ended') await lookAtTheRun();
 */
export async function remoteRunChange(
  store: SessionStateStore,
  run: { sessionId: string; runId: string },
  keys: readonly string[],
  soon: boolean,
  stop: AbortSignal,
): Promise<RunChange | undefined> {
  if (stop.aborted) return undefined;
  const loop = loops.get(store) ?? new LookLoop(store);
  loops.set(store, loop);
  let unwatch: (() => void) | undefined;
  const looked = new Promise<undefined>((resolve) => {
    unwatch = loop.watch(run.sessionId, run.runId, soon, () => resolve(undefined));
    stop.addEventListener('abort', () => resolve(undefined), { once: true });
  });
  try {
    return await Promise.race([waitForRunChange(keys, NO_TIMEOUT_MS, stop), looked]);
  } finally {
    unwatch?.();
  }
}
