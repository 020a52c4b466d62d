/**
 * What a signal says of a run: it `changed` (look at the store), or it `ended`: its finish committed with its step's
 * record, so its outcome is durable and no human wait is left to look for.
 *
 * @example
 * signalRunChanged(runId, 'ended');
 */
export type RunChange = 'changed' | 'ended';

/**
 * Process-local wake-ups for handles waiting on a run: the step that records a run's end (or its suspension)
 * signals it, so a handle in the same process resolves at once instead of at its next poll. Handles still
 * poll the store (the source of truth), so a run ending in another process is seen too.
 */
const waiters = new Map<string, Set<(change: RunChange) => void>>();

/**
 * Resolve when `signalRunChanged(key)` is called in this process for any of `keys` (a run id, or
 * {@link sessionSignal} of a root session), with what the signal said; or after `timeoutMs`, or when `stop` fires
 * (the waiter is dropped), with `undefined`.
 *
 * @example
 * if ((await waitForRunChange(runId, 25)) === 'ended') return;
 */
export async function waitForRunChange(keys: string | readonly string[], timeoutMs: number, stop?: AbortSignal): Promise<RunChange | undefined> {
  return new Promise<RunChange | undefined>((resolve) => {
    const unlisten = listen(typeof keys === 'string' ? [keys] : keys, (change) => done(change));
    const done = (change?: RunChange): void => {
      clearTimeout(timer);
      unlisten();
      resolve(change);
    };
    const timer = setTimeout(() => done(), timeoutMs);
    stop?.addEventListener('abort', () => done(), { once: true });
  });
}

/** Call `wake` on each `signalRunChanged` of any of `keys` until the returned function is called. */
function listen(keys: readonly string[], wake: (change: RunChange) => void): () => void {
  for (const key of keys) {
    const set = waiters.get(key) ?? new Set<(change: RunChange) => void>();
    waiters.set(key, set);
    set.add(wake);
  }
  return () => {
    for (const key of keys) {
      const set = waiters.get(key);
      set?.delete(wake);
      if (set?.size === 0) waiters.delete(key);
    }
  };
}

/**
 * What {@link watchRunChange} saw: whether any of its keys was signalled since it began.
 *
 * @example
 * const watch: RunChangeWatch = watchRunChange([runId]);
 */
export interface RunChangeWatch {
  /** True once any of the keys was signalled (the watch then stops listening). */
  readonly changed: boolean;
  /** True when that first signal said the run `ended` (see {@link RunChange}). */
  readonly ended: boolean;
  /** Stop listening (idempotent). */
  release(): void;
}

/**
 * Remember whether `signalRunChanged` is called for any of `keys` from now on: a handle of a run this process is
 * about to start learns, when its caller first asks for the result, whether the run may have changed meanwhile. It
 * listens until the first signal or `release()` (every run's end signals its run id, so a watch never outlives its run
 * in this process).
 *
 * @example
 * const watch = watchRunChange([runId, sessionSignal(sessionId)]);
 * if (watch.changed) await readTheStore();
 * watch.release();
 */
export function watchRunChange(keys: readonly string[]): RunChangeWatch {
  let changed = false;
  let ended = false;
  const release = listen(keys, (change) => {
    changed = true;
    ended = change === 'ended';
    release();
  });
  return {
    get changed() {
      return changed;
    },
    get ended() {
      return ended;
    },
    release,
  };
}

/**
 * The signal key of a root session: a descendant that starts waiting for a human signals it, so the root's
 * handles in this process look at once.
 *
 * @example
 * signalRunChanged(sessionSignal(rootSessionId));
 */
export function sessionSignal(sessionId: string): string {
  return `session:${sessionId}`;
}

/**
 * Wake every handle of this process waiting on `runId` (its status or record changed), or on a {@link sessionSignal} key.
 * `'ended'` only from a finish whose writes committed with its step's record (see {@link RunChange}).
 *
 * @example
 * signalRunChanged(input.runId);
 */
export function signalRunChanged(runId: string, change: RunChange = 'changed'): void {
  for (const wake of [...(waiters.get(runId) ?? [])]) wake(change);
}
